import { describe, expect, it } from "vitest";
import { analyzeWorkflowSource } from "./analyze.js";
import { analyzeFixture, chain, edgeList, ids, nodeById, warningCodes } from "./testkit.js";

describe("Tako-style defineWorkflow handlers (seed 002)", () => {
  it("fulfill-order: ctx.run steps keyed by their names", () => {
    const d = analyzeFixture("tako-fulfill-order");
    expect(d.workflow).toMatchObject({
      name: "fulfill-order",
      dialect: "tako",
      params: ["payload", "ctx"],
      options: { retries: 4 },
    });
    expect(edgeList(d)).toEqual(chain("start", "step:load-order", "step:charge", "step:send-receipt", "end"));
    expect(nodeById(d, "start").label).toBe("fulfill-order");
    expect(nodeById(d, "step:charge")).toMatchObject({ kind: "step", label: "charge", key: "charge", line: 19 });
    expect(d.warnings).toEqual([]);
  });

  it("step options, ms sleep, waitFor with a computed event, bail and fail", () => {
    const d = analyzeFixture("tako-approval");
    expect(ids(d)).toEqual([
      "start",
      "step:call-provider",
      "sleep:wait-before-reminder",
      "wait:approval:order-${payload.orderId}",
      "branch:1",
      "bail:1",
      "branch:2",
      "fail:1",
      "step:send-receipt",
      "end",
    ]);
    expect(nodeById(d, "step:call-provider").options).toEqual({ retries: 2, backoff: { base: 500, max: 10000 } });
    expect(nodeById(d, "sleep:wait-before-reminder")).toMatchObject({
      key: "wait-before-reminder",
      duration: { value: 86_400_000, unit: "ms" },
    });
    expect(nodeById(d, "wait:approval:order-${payload.orderId}")).toMatchObject({
      kind: "wait",
      label: "approval:order-${payload.orderId}",
      approximateKey: true,
      options: { timeout: 604_800_000 },
    });
    expect(nodeById(d, "bail:1").label).toBe("bail: approval timed out");
    expect(edgeList(d)).toEqual([
      ...chain(
        "start",
        "step:call-provider",
        "sleep:wait-before-reminder",
        "wait:approval:order-${payload.orderId}",
        "branch:1",
      ),
      "branch:1 -[true]-> bail:1",
      "branch:1 -[false]-> branch:2",
      "branch:2 -[true]-> fail:1",
      "branch:2 -[false]-> step:send-receipt",
      "step:send-receipt -> end",
      "bail:1 -> end",
      "fail:1 -> end",
    ]);
    expect(warningCodes(d)).toEqual(["DYNAMIC_KEY"]);
  });

  it("handler as a method, a destructured context, and a literal event name", () => {
    const d = analyzeWorkflowSource(`
      import { defineWorkflow } from "sluice";
      export default defineWorkflow("reminder", {
        async handler(payload: { id: string }, { run, sleep: nap, waitFor }) {
          await run("load", () => 1);
          await nap("pause", 60_000);
          const ok = await waitFor("approved");
          await run("load", () => 2);
        },
      });`);
    expect(d.workflow).toMatchObject({
      name: "reminder",
      dialect: "tako",
      params: ["payload", "{ run, sleep: nap, waitFor }"],
    });
    expect(edgeList(d)).toEqual(chain("start", "step:load", "sleep:pause", "wait:approved", "step:load#2", "end"));
    expect(nodeById(d, "wait:approved").approximateKey).toBeUndefined();
  });

  it("defineWorkflow(name, handler) with a named handler function elsewhere in the module", () => {
    const d = analyzeWorkflowSource(`
      async function handle(payload: unknown, context: any) {
        await context.run("a", () => 1);
      }
      export const wf = defineWorkflow("by-ref", { handler: handle });`);
    expect(d.workflow?.name).toBe("by-ref");
    expect(edgeList(d)).toEqual(chain("start", "step:a", "end"));
  });
});
