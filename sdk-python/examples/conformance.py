"""The Python side of the conformance suite (test/conformance/): the same workflows as
test/conformance/workflows.ts and sdk-go/examples/conformance/main.go, run over the worker
protocol by ``wmill.worker`` (on PYTHONPATH: ``sluice dev`` puts Sluice's SDK there for
``workers`` commands). It follows the suite's worker contract (test/conformance/README.md):
SLUICE_URL and SLUICE_TOKEN, CONFORMANCE_WORKER (this process's name, written into step values),
CONFORMANCE_LEASE_MS (lease length), and the output lines the scenarios read.
"""
import os
import time

from wmill.worker import ChildError, TaskError, register_workflow, run_worker

NAME = os.environ.get("CONFORMANCE_WORKER") or "python"


def say(line):
    print(line, flush=True)


def steps(ctx, _payload):
    def a():
        say("conf-steps: a ran")
        return 1

    first = ctx.step.run("a", a)
    ctx.step.sleep("nap", 0.3)
    return ctx.step.run("b", lambda: first + 1)


def retry(ctx, _payload):
    def attempt():
        if ctx.attempt == 1:
            raise RuntimeError("first attempt fails")
        return ctx.attempt

    return ctx.step.run("try", attempt)


def wait_timeout(ctx, _payload):
    if ctx.step.wait_for("never", timeout=0.2) is None:
        ctx.bail("timed out")


def signalled(ctx, payload):
    got = ctx.step.wait_for(payload["event"], timeout=3600)
    if not (got or {}).get("ok"):
        ctx.fail(ValueError("bad signal"))


def fails(ctx, _payload):
    ctx.fail(ValueError("bad order"))


def crash(ctx, payload):
    def first():
        say(f"conf-crash: first ran on {NAME}")
        return NAME

    def work():
        say(f"conf-crash: work started on {NAME}, attempt {ctx.attempt}")
        time.sleep(payload["ms"] / 1000)
        say(f"conf-crash: work finished on {NAME}")
        return NAME

    ctx.step.run("first", first)
    return ctx.step.run("work", work)


def child(ctx, payload):
    if payload["n"] == 0:
        ctx.fail(ValueError("cannot double zero"))
    return ctx.step.run("double", lambda: payload["n"] * 2)


def parent(ctx, _payload):
    d = ctx.step.child("double", "conf-child", {"n": 21})
    try:
        ctx.step.child("zero", "conf-child", {"n": 0})
        ctx.fail(ValueError("the zero child should have failed"))
    except ChildError:
        pass
    return ctx.step.run("sum", lambda: d + 1)


def fanout(ctx, _payload):
    calls = [{"name": "double", "workflow": "conf-child", "payload": {"n": n}} for n in (1, 2, 0)]
    a, b, zero = ctx.step.children(calls)
    if not isinstance(zero, ChildError) or isinstance(a, ChildError) or isinstance(b, ChildError):
        ctx.fail(ValueError("want the third child (n = 0) alone to fail"))
    return ctx.step.run("sum", lambda: a + b)


def approval(ctx, _payload):
    decision = ctx.step.wait_for_approval(timeout=3600)
    if not decision["approved"]:
        ctx.bail("rejected")
    return ctx.step.run("after", lambda: decision["approver"])


def links(ctx, _payload):
    ctx.step.run("links", lambda: ctx.step.get_resume_urls(approver="bob"))
    decision = ctx.step.wait_for_approval(timeout=3600)
    return ctx.step.run("after", lambda: decision["approver"])


def extract(ctx, payload):
    return ctx.step.run("rows", lambda: payload["n"] * 10)


def broken(_ctx, _payload):
    raise ValueError("bad row")


def slow(_ctx, _payload):
    time.sleep(1.5)
    return "too late"


def tasks(ctx, _payload):
    rows = ctx.step.task("extract", "extract", {"n": 2}, priority=3, cache_ttl=60)
    try:
        ctx.step.task("broken", "broken", {})
        ctx.fail(ValueError("the broken task should have failed"))
    except TaskError as err:
        failed = {"key": err.step_key, "child": bool(err.child_job_id), "message": err.result["message"]}
    [late] = ctx.step.children([{"name": "slow", "task": "slow", "timeout": 0.3}])
    timed_out = late.code if isinstance(late, ChildError) else None
    return ctx.step.run("sum", lambda: {"rows": rows, "failed": failed, "late": timed_out})


def echo(_ctx, payload):
    return payload["i"]


def big_fanout(ctx, payload):
    pad = "x" * 1000  # 550 children of ~1,050 bytes: over 512 KiB, so the park goes in parts
    calls = [{"name": "echo", "task": "echo", "payload": {"i": i, "pad": pad}} for i in range(payload["n"])]
    results = ctx.step.children(calls)
    return ctx.step.run("sum", lambda: sum(results))


def cron(ctx, _payload):
    def tick():
        say(f"conf-cron: ran on {NAME}")
        return NAME

    return ctx.step.run("tick", tick)


register_workflow("conf-steps", steps)
register_workflow("conf-retry", retry, max_attempts=3, backoff=(0.1, 0.2))
register_workflow("conf-wait-timeout", wait_timeout)
register_workflow("conf-signal", signalled)
register_workflow("conf-fail", fails)
register_workflow("conf-crash", crash)
register_workflow("conf-child", child)
register_workflow("conf-parent", parent)
register_workflow("conf-fanout", fanout)
register_workflow("conf-approval", approval)
register_workflow("conf-links", links)
register_workflow("conf-tasks", tasks, tasks=[extract, broken, slow])
register_workflow("conf-big-fanout", big_fanout, tasks=[echo])
register_workflow("conf-cron", cron, schedule="* * * * *")

if __name__ == "__main__":
    lease = int(os.environ.get("CONFORMANCE_LEASE_MS") or 0)
    options = {"inline_sleep": 0.1}  # sleeps over 100 ms park, so a sleep is checkpointed across claims
    if lease > 0:
        options["lease"] = lease / 1000
    say("conformance worker: ready")
    run_worker(**options)
