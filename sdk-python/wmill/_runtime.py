"""The execution the calling code belongs to (a context variable set by the Sluice host).

A workflow execution collects the durable calls its code makes (tasks, steps, sleeps,
approvals); the host sends every call made before the event loop goes idle to Sluice in one
message, so the calls of one ``asyncio.gather`` are written by one suspend.
"""
import contextvars

current = contextvars.ContextVar("sluice_execution", default=None)


def workflow_execution():
    """The running workflow execution, or None (plain Python, or inside a task)."""
    ex = current.get()
    return ex if ex is not None and ex.kind == "workflow" else None
