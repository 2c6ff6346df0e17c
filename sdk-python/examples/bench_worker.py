"""The Python side of ``npm run bench`` (bench/python-worker-bench.ts): a one-step workflow and
a fan-out of ``payload["n"]`` task children started together (one suspend for the workflow
code, written in parts over the SDK's park budget), run over the worker protocol by
``wmill.worker``. It drains on SIGTERM."""
import sys

from wmill.worker import register_workflow, run_worker


def one(ctx, _payload):
    return ctx.step.run("only", lambda: 1)


def item(_ctx, _payload):
    return 1


def fanout(ctx, payload):
    results = ctx.step.children([{"name": "item", "task": "item", "payload": {"i": i}} for i in range(payload["n"])])
    for r in results:
        if isinstance(r, BaseException):
            ctx.fail(r)
    return sum(results)


register_workflow("py-one", one)
register_workflow("py-fanout", fanout, tasks=[item])

if __name__ == "__main__":
    print("bench-worker: ready", file=sys.stderr, flush=True)
    run_worker()
