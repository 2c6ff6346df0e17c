/**
 * A Python workflow on the worker protocol (`sluice dev` starts its Python worker) reads its
 * claim's span with `wmill.trace_context()`: the real binary with `--otel` exports to an
 * OTLP/HTTP receiver on 127.0.0.1, and the traceparent the Python code sees (the workflow's and
 * its task's) names the exported `run` span of that claim, in the trace of the caller's
 * `traceparent` header.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startOtlpReceiver, type OtlpReceiver } from "../helpers/otlp-receiver.js";
import { spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";
import { eventually } from "../helpers/tmp.js";
import { ancestry, one } from "./spans.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const TP = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

const FLOW = `from wmill import task, workflow, trace_context

@task
async def where():
    return trace_context()

@workflow
async def main():
    return {"child": await where(), "parent": trace_context()}
`;

let receiver: OtlpReceiver | null = null;
afterEach(async () => {
  await receiver?.close();
  receiver = null;
});

describe("trace context of a Python workflow on the worker protocol", () => {
  it("wmill.trace_context() names the claim's own exported run span", async () => {
    receiver = await startOtlpReceiver();
    const root = makeProject({ "f/p/traced.py": FLOW }, "sluice-py-proto-trace-");
    // The default host (no SLUICE_PYTHON_HOST): the protocol worker.
    const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch", "--otel", receiver.url], root, {
      SLUICE_PYTHON_HOST: "",
    });
    await dev.waitFor(/python: the Python workflows run on a worker of the worker protocol/, 30_000);
    await dev.waitFor(/UI: http:\/\/127\.0\.0\.1:\d+/, 30_000);
    const url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
    const created = (await (
      await fetch(`${url}/api/runs`, {
        method: "POST",
        headers: { "content-type": "application/json", traceparent: TP },
        body: JSON.stringify({ workflow: "f/p/traced", payload: {} }),
      })
    ).json()) as { run: { id: string } };
    const done = await eventually(async () => {
      const d = (await (await fetch(`${url}/api/runs/${created.run.id}`)).json()) as {
        run: { status: string; result: Record<string, { traceparent: string } | null> };
      };
      return d.run.status === "succeeded" ? d.run : null;
    }, 30_000);
    await eventually(
      () => receiver!.spans.filter((s) => s.name.startsWith("run f/p/traced")).length >= 3 || null,
      10_000,
    );
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);

    const spans = receiver.spans;
    expect(receiver.rejected).toEqual([]);
    // The task's claim: under the parent's `child` span, in the caller's trace.
    const taskClaim = one(spans, "run f/p/traced.where");
    expect(taskClaim.traceId).toBe(TRACE_ID);
    expect(ancestry(spans, taskClaim)).toEqual(["child f/p/traced.where", "run f/p/traced", "enqueue f/p/traced"]);
    expect(done.result.child?.traceparent).toBe(`00-${TRACE_ID}-${taskClaim.spanId}-01`);
    // The parent's last claim (the one that returned) is what its code saw then.
    const finalClaim = one(spans, "run f/p/traced", { "sluice.outcome": "succeeded" });
    expect(done.result.parent?.traceparent).toBe(`00-${TRACE_ID}-${finalClaim.spanId}-01`);
    expect(ancestry(spans, finalClaim)).toEqual(["enqueue f/p/traced"]);
    expect(finalClaim.attributes["sluice.worker.id"]).toEqual(expect.any(String));
  }, 90_000);
});
