/**
 * Every CLI command as users run it: the real `sluice` binary in a child process,
 * against a separate `sluice dev` (one per file, shared), `sluice worker` or
 * `sluice server` process, checking exit code, stdout and stderr.
 *
 * Commands and where they are covered as processes: enqueue (here and wait.test.ts),
 * runs, show, signal, cancel, approve, token create/list/revoke, dev, worker, server,
 * pipeline graph/run/backfill/status (here).
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { makeProject, REPO } from "../helpers/project.js";
import { type SluiceProcess, spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";

const FILES = {
  "workflows/hello.ts": `
    import { defineWorkflow } from "sluice";
    export default defineWorkflow<{ name: string }>("hello", { handler: async (p, ctx) => ctx.run("greet", () => "hello " + p.name) });`,
  "workflows/waiter.ts": `
    import { defineWorkflow } from "sluice";
    export default defineWorkflow<{ id: string }>("waiter", { handler: async (p, ctx) => ctx.waitFor("go:" + p.id) });`,
  "workflows/doomed.ts": `
    import { defineWorkflow } from "sluice";
    export default defineWorkflow("doomed", { handler: async () => "still here" });`,
  "f/data/etl.ts": `
    import { workflow, step } from "windmill-client";
    export const main = workflow(async (baseUrl: string, pages: number, label?: string) => {
      const at = await step("fetched", () => baseUrl + "?pages=" + pages);
      return { at, label: label ?? null };
    });`,
  "f/ops/quick_gate.ts": `
    import { workflow, waitForApproval } from "windmill-client";
    export const main = workflow(async () => waitForApproval({ timeout: 1 }));`,
  "f/daily/extract.ts": `// pipeline
// partitioned daily
import * as wmill from 'windmill-client';
export async function main(partition: string) { await wmill.writeS3File({ s3: \`daily/raw/\${partition}.json\` }, JSON.stringify({ day: partition })); }
`,
  "f/daily/load.ts": `// pipeline
// on s3://daily/raw/{partition}.json
import * as wmill from 'windmill-client';
export async function main(partition: string) {
  const raw = JSON.parse(await wmill.loadS3File({ s3: \`daily/raw/\${partition}.json\` }));
  await wmill.writeS3File({ s3: \`daily/clean/\${partition}.json\` }, JSON.stringify({ ...raw, clean: true }));
}
`,
};

async function done(p: SluiceProcess) {
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}

// Each test spawns several processes; on a loaded machine one costs seconds.
describe("the CLI as processes, against one sluice dev", { timeout: 120_000 }, () => {
  let root: string;
  let dev: SluiceProcess;
  let url: string;
  const sluice = (...args: string[]) => done(spawnSluice(args, root));
  const status = async (id: string) => {
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    try {
      return (await store.getRun(id))?.status;
    } finally {
      await store.close();
    }
  };
  const until = (id: string, s: string) => eventually(async () => (await status(id)) === s, 20_000, 100);
  const post = (path: string, body: unknown) =>
    fetch(`${url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    root = makeProject(FILES);
    dev = spawnSluice(["dev", ".", "--port", "0"], root, {}, { shared: true });
    await dev.waitFor(/UI: (http:\/\/127\.0\.0\.1:\d+)/, 40_000);
    url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
  });
  afterAll(async () => {
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
    expect(dev.stdout()).toMatch(/stopped\n$/);
  });

  it("dev loads the project's modules and pipelines and serves the API", async () => {
    expect(dev.stdout()).toMatch(/loaded workflows\/hello\.ts: hello {2}\[code [0-9a-f]{8}\]/);
    expect(dev.stdout()).toMatch(/loaded f\/data\/etl\.ts: f\/data\/etl/);
    expect(dev.stdout()).toMatch(/sluice dev: \d+ workflow\(s\), database \.sluice\/sluice\.db\. Ctrl-C to stop\./);
    expect(dev.stderr()).toBe("");
    expect(await (await fetch(`${url}/api/health`)).json()).toEqual({ ok: true, store: "sqlite" });
  });

  it("--version and the OpenAPI document both give package.json's version", async () => {
    const { version } = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };
    const { code, out } = await sluice("--version");
    expect(code).toBe(0);
    expect(out.trim()).toBe(version);
    const doc = (await (await fetch(`${url}/api/openapi.json`)).json()) as { info: { version: string } };
    expect(doc.info.version).toBe(version);
  });

  it("enqueue refuses a payload that does not fit main's parameters (CLI and POST /api/runs), and accepts one that does", async () => {
    const typo = await sluice("enqueue", "f/data/etl", '{"baseUrl": "https://x", "dta": 1}');
    expect(typo).toEqual({
      code: 1,
      out: "",
      err: 'sluice: unknown parameter "dta" for f/data/etl: its parameters are baseUrl, pages, label\n',
    });
    const missing = await sluice("enqueue", "f/data/etl", '{"baseUrl": "https://x"}');
    expect(missing.code).toBe(1);
    expect(missing.err).toBe(
      'sluice: missing parameter "pages" for f/data/etl: its parameters are baseUrl, pages, label (required: baseUrl, pages)\n',
    );
    const api = await post("/api/runs", { workflow: "f/data/etl", payload: { dta: 1 } });
    expect(api.status).toBe(400);
    expect(((await api.json()) as any).error).toEqual({
      code: "INVALID_ARGUMENTS",
      message: 'unknown parameter "dta" for f/data/etl: its parameters are baseUrl, pages, label',
    });
    expect(JSON.parse((await sluice("runs", "--workflow", "f/data/etl", "--json")).out)).toEqual([]);
    const ok = await sluice("enqueue", "f/data/etl", '{"baseUrl": "https://x", "pages": 2}', "--wait");
    expect(ok.code, ok.err).toBe(0);
    expect(JSON.parse(ok.out)).toEqual({ at: "https://x?pages=2", label: null });
  });

  it("a workflow whose file was deleted under sluice dev is refused and no longer listed", async () => {
    const listed = async () =>
      ((await (await fetch(`${url}/api/workflows`)).json()) as any).workflows.map((w: { name: string }) => w.name);
    expect(await listed()).toContain("doomed");
    rmSync(join(root, "workflows", "doomed.ts"));
    await dev.waitFor(/removed workflows\/doomed\.ts: doomed/);
    const cli = await sluice("enqueue", "doomed", "{}");
    expect(cli.code).toBe(1);
    expect(cli.out).toBe("");
    expect(cli.err).toMatch(
      /^sluice: workflow "doomed" was removed \(its file workflows\/doomed\.ts was deleted\): restore it to enqueue it again .*; known workflows: .*hello/,
    );
    const api = await post("/api/runs", { workflow: "doomed" });
    expect(api.status).toBe(404);
    expect(((await api.json()) as any).error).toMatchObject({
      code: "UNKNOWN_WORKFLOW",
      message: expect.stringContaining('workflow "doomed" was removed'),
    });
    expect(await listed()).not.toContain("doomed");
    expect(JSON.parse((await sluice("runs", "--workflow", "doomed", "--json")).out)).toEqual([]);
  });

  it("runs, show, signal and cancel", async () => {
    const enqueued = await Promise.all(
      ["1", "2"].map((n) => sluice("enqueue", "waiter", `{"id": "${n}"}`, "--id", `w${n}`)),
    );
    expect(enqueued.map((r) => [r.code, r.out])).toEqual([
      [0, "w1\n"],
      [0, "w2\n"],
    ]);
    await until("w1", "waiting");
    await until("w2", "waiting");
    const list = await sluice("runs", "--status", "waiting", "--json");
    expect(list.code).toBe(0);
    expect(
      JSON.parse(list.out)
        .map((r: { id: string }) => r.id)
        .sort(),
    ).toEqual(["w1", "w2"]);
    const table = await sluice("runs", "--workflow", "waiter");
    expect(table.out).toMatch(/ID\s+WORKFLOW\s+STATUS/);
    expect(table.out).toMatch(/w1\s+waiter\s+\S+ waiting/);
    expect(table.err).toBe("");
    // A list cut at --limit says so (on stderr), with how to see more.
    const cut = await sluice("runs", "--workflow", "waiter", "--limit", "1");
    expect(cut.code).toBe(0);
    expect(cut.out.trim().split("\n")).toHaveLength(2);
    expect(cut.err).toBe("(the newest 1 shown: more with --limit 20, or narrow with --status / --workflow)\n");
    const sig = await sluice("signal", "go:1", '{"ok": true}');
    expect(sig).toEqual({ code: 0, out: 'woke 1 run waiting on "go:1"\n', err: "" });
    // Nobody waits on go:9 and no --buffer: the signal is dropped, and the answer says how to keep it.
    expect(await sluice("signal", "go:9", "{}")).toEqual({
      code: 0,
      out: 'no run is waiting on "go:9": the signal is dropped (pass --buffer 1h to keep it for the next waitFor)\n',
      err: "",
    });
    await until("w1", "succeeded");
    const shown = await sluice("show", "w1", "--json");
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.out)).toMatchObject({ id: "w1", status: "succeeded", result: { ok: true } });
    expect((await sluice("show", "w1")).out).toMatch(/status\s+✓ succeeded/);
    // A buffered signal sent before its run waits is kept, and the run's waitFor takes it.
    const early = await sluice("signal", "go:3", '{"early": true}', "--buffer", "10m");
    expect(early).toEqual({
      code: 0,
      out: 'no run is waiting on "go:3": kept for 10m for the next waitFor\n',
      err: "",
    });
    expect((await sluice("enqueue", "waiter", '{"id": "3"}', "--id", "w3", "--wait", "--json")).out).toMatch(
      /"status": "succeeded"[\s\S]*"early": true/,
    );
    const badBuffer = await sluice("signal", "go:4", "--buffer", "soon");
    expect(badBuffer.code).toBe(1);
    expect(badBuffer.err).toMatch(/--buffer "soon" is not a duration/);
    const cancel = await sluice("cancel", "w2", "--reason", "not needed");
    expect(cancel).toEqual({ code: 0, out: "cancelled w2\n", err: "" });
    // Documented: a finished run is left as it is, exit 0 (the API answers 409 RUN_FINISHED).
    expect(await sluice("cancel", "w2")).toEqual({
      code: 0,
      out: "run w2 had already finished (cancelled); nothing to cancel\n",
      err: "",
    });
    expect(JSON.parse((await sluice("cancel", "w2", "--json")).out)).toEqual({
      id: "w2",
      status: "cancelled",
      cancelled: false,
    });
    for (const missing of await Promise.all(["show", "cancel"].map((cmd) => sluice(cmd, "nope")))) {
      expect(missing).toMatchObject({ code: 1, out: "" });
      expect(missing.err).toMatch(/^sluice: no run with id "nope": check the id with `sluice runs`/);
    }
  });

  it("approve: a missing run is 'no run with id', a decision after the timeout is APPROVAL_EXPIRED", async () => {
    const missing = await sluice("approve", "nope");
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/^sluice: no run with id "nope"/);
    const gate = await sluice("enqueue", "f/ops/quick_gate", "{}", "--id", "gate-1", "--wait");
    expect(gate.code, gate.err).toBe(0);
    expect(JSON.parse(gate.out)).toEqual({ value: null, approver: null, approved: false });
    const late = await sluice("approve", "gate-1", "--as", "bob");
    expect(late).toEqual({
      code: 1,
      out: "",
      err: "sluice: this approval of run gate-1 timed out: it can no longer be decided\n",
    });
    const json = await sluice("approve", "gate-1", "--as", "bob", "--json");
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({
      runId: "gate-1",
      key: "waitForApproval",
      outcome: "expired",
      error: { code: "APPROVAL_EXPIRED" },
    });
  });

  it("pipeline graph, run, backfill and status", async () => {
    const graph = await sluice("pipeline", "graph", "f/daily", "--json");
    expect(graph.code, graph.err).toBe(0);
    expect(JSON.parse(graph.out).scripts.map((s: { name: string }) => s.name)).toEqual([
      "f/daily/extract",
      "f/daily/load",
    ]);
    const text = await sluice("pipeline", "graph", "f/daily");
    expect(text.out).toContain("s3://daily/raw/{partition}.json → load.ts → s3://daily/clean/{partition}.json");
    const run = await sluice("pipeline", "run", "f/daily", "--partition", "2026-04-30", "--json");
    expect(run.code, run.err).toBe(0);
    expect(JSON.parse(run.out)).toMatchObject({
      status: "succeeded",
      partition: "2026-04-30",
      steps: [{ status: "succeeded" }, { status: "succeeded" }],
    });
    const backfill = await sluice(
      "pipeline",
      "backfill",
      "f/daily",
      "--from-partition",
      "2026-05-01",
      "--to-partition",
      "2026-05-02",
    );
    expect(backfill.code, backfill.err).toBe(0);
    expect(backfill.out).toMatch(/\[#{20}\] 2\/2 2026-05-02 ✓/);
    expect(backfill.out).toContain("backfilled 2 partition(s)");
    const st = await sluice("pipeline", "status", "f/daily", "--json");
    expect(st.code, st.err).toBe(0);
    const raw = JSON.parse(st.out).assets.find((a: { uri: string }) => a.uri === "s3://daily/raw/{partition}.json");
    expect(raw.partitions.map((p: { partition: string }) => p.partition)).toEqual([
      "2026-04-30",
      "2026-05-01",
      "2026-05-02",
    ]);
    const bad = await sluice("pipeline", "run", "f/nowhere");
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^sluice: folder f\/nowhere does not exist/);
  });
});

describe("worker, server and tokens as processes", { timeout: 120_000 }, () => {
  it("a worker process runs what the CLI enqueued and exits when idle", async () => {
    const root = makeProject(FILES);
    expect((await done(spawnSluice(["enqueue", "hello", '{"name": "ana"}', "--id", "h1"], root))).code).toBe(0);
    const w = await done(spawnSluice(["worker", "--exit-when-idle", "--idle", "300ms"], root));
    expect(w.code).toBe(0);
    expect(w.out).toMatch(/worker \S+ ready: \d+ workflow\(s\)/);
    expect(w.out).toMatch(/✓ hello h1 succeeded in .* → "hello ana"/);
    expect(w.out).toMatch(/idle: exiting\nworker stopped after 1 claim\(s\)\n$/);
  });

  it("token create/list/revoke control access to a running sluice server", async () => {
    const root = makeProject(FILES);
    const server = spawnSluice(["server", "--port", "0"], root);
    await server.waitFor(/API and UI: (http:\/\/127\.0\.0\.1:\d+)/, 40_000);
    const url = /API and UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())![1]!;
    expect((await fetch(`${url}/api/runs`)).status).toBe(401);
    const created = await done(spawnSluice(["token", "create", "--scope", "read", "--name", "ci"], root));
    expect(created.code).toBe(0);
    const token = created.out.trim();
    expect(token).toMatch(/^sluice_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(created.err).toMatch(/^token \S+ for ci \(scope read\); it is shown only now/);
    const auth = { headers: { authorization: `Bearer ${token}` } };
    expect((await fetch(`${url}/api/runs`, auth)).status).toBe(200);
    const list = await done(spawnSluice(["token", "list", "--json"], root));
    const [t] = JSON.parse(list.out);
    expect(t).toMatchObject({ name: "ci", scope: "read" });
    expect(list.out).not.toContain(token.slice(-43));
    expect(await done(spawnSluice(["token", "revoke", t.id], root))).toEqual({
      code: 0,
      out: `revoked ${t.id}\n`,
      err: "",
    });
    expect((await fetch(`${url}/api/runs`, auth)).status).toBe(401);
    const again = await done(spawnSluice(["token", "revoke", t.id], root));
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/no token with id/);
    server.proc.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(server.stdout()).toMatch(/server stopped\n$/);
  });
});
