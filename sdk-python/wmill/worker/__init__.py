"""Sluice's worker-protocol client for Python (docs/PROTOCOL.md), standard library only.

The same protocol the Go SDK speaks: this process registers its workflows with a Sluice server
(SLUICE_URL, and SLUICE_TOKEN when it uses tokens), claims their runs by long-poll, replays each
handler against the run's journal, and reports checkpoints, parks and outcomes with the claim's
fencing token.

    from wmill.worker import register_workflow, run_worker

    def fulfill(ctx, order):
        charged = ctx.step.run("charge", lambda: charge(order), retries=3)
        ctx.step.sleep("cool-off", 60)            # parks the run: no thread held
        ok = ctx.step.wait_for(f"approval:{order['id']}", timeout=3600)
        if ok is None:
            ctx.bail("not approved in time")
        return {"charged": charged}

    register_workflow("fulfill-order", fulfill, max_attempts=5)
    run_worker()

Handlers are plain functions ``handler(ctx, payload)``; each claim runs in its own thread. Durations
are seconds. Parking, bail and fail unwind the handler with exceptions derived from
``BaseException`` (``except Exception`` does not catch them).
"""
from ._context import WorkflowContext
from ._errors import (
    BailError,
    ChildError,
    FailError,
    LeaseLost,
    NonDeterminismError,
    Parked,
    SluiceAPIError,
    TaskError,
    TaskTimeout,
    UnavailableError,
)
from ._http import Client, client_from_env
from ._producer import enqueue, signal
from ._registry import register_workflow
from ._worker import Worker, run_worker

__all__ = [
    "register_workflow",
    "run_worker",
    "Worker",
    "WorkflowContext",
    "Client",
    "client_from_env",
    "enqueue",
    "signal",
    "BailError",
    "ChildError",
    "FailError",
    "LeaseLost",
    "NonDeterminismError",
    "Parked",
    "SluiceAPIError",
    "TaskError",
    "TaskTimeout",
    "UnavailableError",
]
