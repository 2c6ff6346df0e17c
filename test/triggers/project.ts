/** The project the trigger tests run: a workflow fed by `sluice.json` and a pipeline step fed by `pipeline.json`. */
import { makeProject } from "../helpers/project.js";
import { type SluiceProcess, spawnSluice } from "../helpers/processes.js";

/** Files of a project whose `orders` workflow and `f/shop/tenant` step are fed by `kind` triggers. */
export function triggerProject(
  kind: "mqtt" | "nats" | "postgres",
  row: Record<string, unknown>,
  stepRow: Record<string, unknown>,
) {
  return makeProject(
    {
      "sluice.json": JSON.stringify({ triggers: [{ name: `orders-${kind}`, kind, target: "orders", ...row }] }),
      "workflows/orders.ts": `import { defineWorkflow } from "tako.sh";
export default defineWorkflow<{ n: number }>("orders", { handler: async (payload) => ({ got: payload.n }) });
`,
      "f/shop/pipeline.json": JSON.stringify({ triggers: { tenant: { [kind]: stepRow } } }),
      "f/shop/tenant.ts": `// pipeline
// on ${kind}
// partitioned dynamic key="$.tenant"
export async function main(partition: string, amount: number) { return { partition, amount }; }
`,
    },
    `sluice-${kind}-trigger-`,
  );
}

/** Starts `sluice dev` on the project and resolves once its API listens. */
export async function startDev(root: string, env: Record<string, string> = {}): Promise<SluiceProcess> {
  const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root, { SLUICE_TRIGGER_TICK_MS: "200", ...env });
  await dev.waitFor(/UI: http:\/\/127\.0\.0\.1:\d+/, 30_000);
  return dev;
}

/** Runs a CLI command to the end and parses its JSON output. */
export async function cliJson<T = any>(root: string, args: string[], env: Record<string, string> = {}): Promise<T> {
  const p = spawnSluice(args, root, env);
  const code = await p.exited;
  if (code !== 0) throw new Error(`sluice ${args.join(" ")} exited ${code}: ${p.output()}`);
  return JSON.parse(p.stdout()) as T;
}

/** The runs of a workflow, by the CLI. */
export async function runsOf(
  root: string,
  workflow: string,
  env: Record<string, string> = {},
): Promise<Array<{ id: string; status: string; payload: any; result: any }>> {
  return cliJson(root, ["runs", "--workflow", workflow, "--limit", "1000", "--json"], env);
}
