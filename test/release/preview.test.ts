/** `sluice preview`: one run from the local files in a throwaway database, as the real binary. */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { DOUBLE, FLOW, sluice } from "./fixtures.js";

/** Two approvals in a row: a yes/no gate, then one with a form whose value is returned. */
const GATED = `import { task, waitForApproval, workflow } from "windmill-client";

async function deploy(env: string) {
  console.log(\`Deploying to \${env}\`);
  return \`deployed to \${env}\`;
}

export const main = workflow(async (env: string) => {
  const gate = await waitForApproval({ timeout: 3600 });
  if (!gate.approved) return \`rejected by \${gate.approver}\`;
  const form = await waitForApproval({
    timeout: 3600,
    form: { reason: { type: "string" }, environment: { type: "string", enum: ["staging", "production"] } },
  });
  return { deployed: await task(deploy)(env), value: form.value, approver: form.approver };
});
`;

/** Runs \`sluice preview\` with \`stdin\` as its standard input (a pipe, not a terminal). */
async function previewWith(root: string, stdin: string, ...args: string[]) {
  const p = spawnSluice(["preview", ...args], root, { SLUICE_USER: "ana" }, { stdin });
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}

describe("sluice preview", () => {
  it("runs a workflow as code with its __mod module once and prints timeline, logs and result; no database is left", async () => {
    const root = makeProject({
      "f/demo/flow.ts": FLOW,
      "f/demo/flow__mod/double.ts": DOUBLE.replace("return n * 2;", 'console.log("doubling", n);\n  return n * 2;'),
    });
    const r = await sluice(root, "preview", "f/demo/flow.ts", '{"n": 5}');
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("timeline of f/demo/flow (succeeded):");
    expect(r.out).toMatch(/task +\.\/double\.ts done \d+ ms → script:f\/demo\/flow__mod\/double/);
    expect(r.out).toContain("[f/demo/flow__mod/double] info doubling 5");
    expect(r.out).toContain('result:\n{\n  "doubled": 10,\n  "ms": 2000\n}');
    expect(existsSync(join(root, ".sluice", "sluice.db"))).toBe(false);
  }, 60_000);

  it("fails with a clear line for an unknown path and for a failing run", async () => {
    const root = makeProject({ "f/x/boom.ts": 'export async function main() {\n  throw new Error("kaput");\n}\n' });
    const unknown = await sluice(root, "preview", "f/x/nope");
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("f/x/nope is not a workflow or script");
    const boom = await sluice(root, "preview", "f/x/boom");
    expect(boom.code).toBe(1);
    expect(boom.err).toContain("run failed: kaput");
  }, 60_000);

  it("points a pipeline script to sluice pipeline run, and says when a project has nothing to preview", async () => {
    const root = makeProject({
      "sluice.json": "{}",
      "f/sales/totals.sql": "-- pipeline\n-- partitioned daily\n-- materialize ducklake://main/totals\nSELECT 1 AS n\n",
    });
    for (const path of ["f/sales/totals.sql", "f/sales/totals"]) {
      const r = await sluice(root, "preview", path);
      expect(r.code).toBe(1);
      expect(r.err).toContain(`${path} is a pipeline script`);
      expect(r.err).toContain("`sluice pipeline run f/sales --to totals.sql --partition <partition>`");
    }
    const none = await sluice(makeProject({ "sluice.json": "{}" }), "preview", "f/x/y");
    expect(none.code).toBe(1);
    expect(none.err).toContain("f/x/y is not a workflow or script of");
    expect(none.err).toContain("which has none");
  }, 60_000);

  it("answers approvals inline from standard input: approve, then a form value (asked again after a bad answer)", async () => {
    const root = makeProject({ "f/ops/gated.ts": GATED });
    const r = await previewWith(
      root,
      'y\nmaybe\n{"reason": "LGTM", "environment": "production"}\n',
      "f/ops/gated",
      '"prod"',
    );
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/approval waitForApproval of f\/ops\/gated \(run \S+\): approve\?/);
    expect(r.err).toContain("approved waitForApproval of run");
    expect(r.err).toContain('"maybe" is not an answer');
    expect(r.err).toMatch(/approval waitForApproval#2 of f\/ops\/gated \(run \S+\) form \{"reason"/);
    expect(r.out).toContain("approval waitForApproval ");
    expect(r.out).toContain("[f/ops/gated:deploy] info Deploying to prod");
    expect(r.out).toMatch(/"deployed": "deployed to prod"/);
    expect(r.out).toMatch(/"reason": "LGTM"/);
    expect(r.out).toMatch(/"approver": "ana"/);
  }, 60_000);

  it("a rejection is answered too; input that ends while an approval waits fails with a clear line", async () => {
    const root = makeProject({ "f/ops/gated.ts": GATED });
    const no = await previewWith(root, "n\n", "f/ops/gated", '"prod"');
    expect(no.code, no.err).toBe(0);
    expect(no.err).toContain("rejected waitForApproval of run");
    expect(no.out).toContain('"rejected by ana"');
    const none = await previewWith(root, "", "f/ops/gated", '"prod"');
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/waits for approval waitForApproval and no answer came on standard input/);
  }, 60_000);
});
