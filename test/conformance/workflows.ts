/**
 * The conformance workflows for the built-in worker, as module source for a test project.
 * sdk-go/examples/conformance/main.go defines the same workflows in Go.
 */
export const CONFORMANCE_TS = `import { defineWorkflow } from "sluice";

export const steps = defineWorkflow("conf-steps", {
  handler: async (_p, ctx) => {
    const a = await ctx.run("a", () => { console.log("conf-steps: a ran"); return 1; });
    await ctx.sleep("nap", 300);
    return ctx.run("b", () => a + 1);
  },
});

export const retry = defineWorkflow("conf-retry", {
  retries: 2,
  backoff: { base: 100, max: 200 },
  handler: async (_p, ctx) =>
    ctx.run("try", () => {
      if (ctx.attempt === 1) throw new Error("first attempt fails");
      return ctx.attempt;
    }),
});

export const waitTimeout = defineWorkflow("conf-wait-timeout", {
  handler: async (_p, ctx) => {
    const v = await ctx.waitFor("never", { timeout: 200 });
    if (v === null) ctx.bail("timed out");
  },
});

export const signalled = defineWorkflow<{ event: string }>("conf-signal", {
  handler: async (p, ctx) => {
    const got = await ctx.waitFor<{ ok: boolean }>(p.event, { timeout: 3_600_000 });
    if (!got?.ok) ctx.fail(new Error("bad signal"));
  },
});

export const fails = defineWorkflow("conf-fail", {
  handler: async (_p, ctx) => ctx.fail(new Error("bad order")),
});

const name = process.env.CONFORMANCE_WORKER ?? "built-in";

export const crash = defineWorkflow<{ ms: number }>("conf-crash", {
  handler: async (p, ctx) => {
    await ctx.run("first", () => { console.log(\`conf-crash: first ran on \${name}\`); return name; });
    return ctx.run("work", async () => {
      console.log(\`conf-crash: work started on \${name}, attempt \${ctx.attempt}\`);
      await new Promise((r) => setTimeout(r, p.ms));
      console.log(\`conf-crash: work finished on \${name}\`);
      return name;
    });
  },
});

export const cron = defineWorkflow("conf-cron", {
  schedule: "* * * * *",
  handler: async (_p, ctx) => ctx.run("tick", () => { console.log(\`conf-cron: ran on \${name}\`); return name; }),
});
`;
