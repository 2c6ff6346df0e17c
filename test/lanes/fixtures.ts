/** Projects and log parsing shared by the lane tests (real `sluice server`/`dev` processes). */
import { spawnSluice, type SluiceProcess } from "../helpers/processes.js";

/** Workflows in four worker groups, each returning the pid of the process that ran it. */
export const LANE_WORKFLOWS: Record<string, string> = {
  "workflows/hello.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow<{ n: number }>("hello", {
  handler: async (p, ctx) => ctx.run("greet", () => ({ n: p.n, pid: process.pid, lane: process.env.SLUICE_LANE })),
});
`,
  "workflows/email.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("send-email", {
  worker: "email",
  handler: async (_p, ctx) => ctx.run("send", () => ({ pid: process.pid, lane: process.env.SLUICE_LANE })),
});
`,
  "workflows/waiter.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("waiter", {
  worker: "signals",
  handler: async (_p, ctx) => {
    const first = await ctx.run("first", () => process.pid);
    const value = await ctx.waitFor("go", { timeout: "1h" });
    return { first, value, pid: process.pid };
  },
});
`,
  "workflows/sleeper.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("sleeper", {
  worker: "sleepy",
  handler: async (_p, ctx) => {
    const before = await ctx.run("before", () => process.pid);
    await ctx.sleep("nap", "4s");
    const after = await ctx.run("after", () => process.pid);
    return { before, after };
  },
});
`,
};

/** A workflow fired by cron every minute, in its own group. */
export const CRON_WORKFLOW = `import { defineWorkflow } from "sluice";
export default defineWorkflow("ticker", {
  worker: "cron",
  schedule: "* * * * *",
  handler: async (_p, ctx) => ctx.run("tick", () => ({ pid: process.pid, lane: process.env.SLUICE_LANE })),
});
`;

/** Worker pids a supervisor started, per lane, in order (from its log lines). */
export function startedWorkers(output: string, lane: string): number[] {
  return [...output.matchAll(new RegExp(`lane ${lane}: runnable work, starting worker pid (\\d+)`, "g"))].map((m) =>
    Number(m[1]),
  );
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Runs a CLI command to completion; returns its exit code and output. */
export async function cli(
  args: string[],
  root: string,
  env: Record<string, string> = {},
): Promise<{ code: number | string; out: string }> {
  const p: SluiceProcess = spawnSluice(args, root, env);
  const code = await p.exited;
  return { code, out: p.output() };
}
