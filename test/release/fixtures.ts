/** The deployer's project of the release tests: workflows as code with `__mod/` modules, an npm import, a sleeper, a cron and a pipeline cascade. */
import { spawnSluice } from "../helpers/processes.js";

export const FLOW = `import { workflow, taskScript } from "windmill-client";
import ms from "ms";

export const main = workflow(async (n: number) => {
  const doubled = await taskScript("./double.ts")({ n });
  return { doubled, ms: ms("2s") };
});
`;

export const DOUBLE = `export async function main(n: number) {
  return n * 2;
}
`;

/** A workflow that parks on a durable sleep, then answers which code version ran it. */
export const sleeper = (answer: string) => `import { defineWorkflow } from "sluice";

export const sleeper = defineWorkflow("sleeper", {
  handler: async (_p: unknown, ctx) => {
    await ctx.sleep("nap", "5s");
    return "${answer}";
  },
});
`;

export const TICK = `import { defineWorkflow } from "sluice";

export const tick = defineWorkflow("tick", { schedule: "* * * * *", handler: async () => "tick" });
`;

const PRODUCE = `// pipeline
import * as wmill from "windmill-client";

export async function main(n: number) {
  await wmill.writeS3File({ s3: "demo/a.json" }, JSON.stringify({ n }));
  return n;
}
`;

const CONSUME = `// pipeline
// on s3://demo/a.json
import * as wmill from "windmill-client";

export async function main() {
  const got = JSON.parse(String(await wmill.loadS3File({ s3: "demo/a.json" })));
  return { consumed: got.n };
}
`;

/** Files of the deployer's project. */
export const PROJECT: Record<string, string> = {
  "f/demo/flow.ts": FLOW,
  "f/demo/flow__mod/double.ts": DOUBLE,
  "workflows/sleeper.ts": sleeper("v1"),
  "f/pipe/produce.ts": PRODUCE,
  "f/pipe/consume.ts": CONSUME,
};

/** Runs the CLI to its end in `cwd`: exit code and output. */
export async function sluice(
  cwd: string,
  ...args: string[]
): Promise<{ code: number | string; out: string; err: string }> {
  const p = spawnSluice(args, cwd);
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}

/** Runs the CLI and parses its JSON standard output; fails with the output when it exits non-zero. */
export async function sluiceJson<T = any>(cwd: string, ...args: string[]): Promise<T> {
  const r = await sluice(cwd, ...args);
  if (r.code !== 0) throw new Error(`sluice ${args.join(" ")} exited ${r.code}:\n${r.out}\n${r.err}`);
  return JSON.parse(r.out) as T;
}
