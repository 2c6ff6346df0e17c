/** `sluice.json` trigger rows in the deploy diff, as the real binary prints them. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawnSluice } from "../helpers/processes.js";
import { makeProject, writeFiles } from "../helpers/project.js";
import { eventually, tempDir } from "../helpers/tmp.js";
import { sluice, sluiceJson } from "./fixtures.js";
import type { ReleaseChanges } from "../../src/core/release.js";

const FLOW =
  'import { defineWorkflow } from "sluice";\n\nexport const ingest = defineWorkflow("ingest", { handler: async () => 1 });\n';
const config = (rows: unknown[]) => JSON.stringify({ triggers: rows }, null, 2);
const mqtt = (topic: string) => ({
  name: "orders",
  kind: "mqtt",
  target: "ingest",
  url: "mqtt://127.0.0.1:1883",
  topic,
});

describe("sluice deploy: sluice.json trigger rows", () => {
  it("prints added, changed and removed rows; a bad row refuses the release", async () => {
    const db = join(tempDir("sluice-trig-db-"), "t.db");
    const root = makeProject({ "workflows/ingest.ts": FLOW, "sluice.json": config([mqtt("orders/#")]) });
    const first = await sluice(root, "deploy", "--db", db);
    expect(first.code, first.err).toBe(0);
    expect(first.out).toContain("+ trigger sluice.json:orders");

    writeFiles(root, {
      "sluice.json": config([mqtt("orders/eu/#"), { ...mqtt("mail/#"), name: "mail" }]),
    });
    const dry = await sluiceJson<{ changes: ReleaseChanges; published: null }>(
      root,
      "deploy",
      "--db",
      db,
      "--dry-run",
      "--json",
    );
    expect(dry.published).toBeNull();
    expect(dry.changes.triggers).toEqual({ added: ["sluice.json:mail"], changed: ["sluice.json:orders"], removed: [] });
    const second = await sluice(root, "deploy", "--db", db);
    expect(second.code, second.err).toBe(0);
    expect(second.out).toContain("+ trigger sluice.json:mail");
    expect(second.out).toContain("~ trigger sluice.json:orders");

    writeFiles(root, { "sluice.json": config([mqtt("orders/eu/#")]) });
    const third = await sluice(root, "deploy", "--db", db);
    expect(third.out).toContain("- trigger sluice.json:mail");
    expect(third.out).not.toContain("sluice.json:orders");

    writeFiles(root, { "sluice.json": config([{ name: "bad", kind: "mqtt", target: "ingest" }]) });
    const bad = await sluice(root, "deploy", "--db", db);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("sluice.json triggers[0]");
    const after = await sluiceJson<{ current: number }>(root, "deploy", "--db", db, "--dry-run", "--json").catch(
      (err: Error) => ({ current: -1, err }),
    );
    // The bad sluice.json is still there, so even a dry run refuses; nothing was published meanwhile.
    expect(after.current).toBe(-1);
    writeFiles(root, { "sluice.json": config([mqtt("orders/eu/#")]) });
    const clean = await sluiceJson<{ current: number }>(root, "deploy", "--db", db, "--dry-run", "--json");
    expect(clean.current).toBe(3);
  }, 90_000);

  it("a --release server in an empty folder consumes the release's sluice.json triggers and follows them across a deploy", async () => {
    const db = join(tempDir("sluice-trig-srv-db-"), "t.db");
    const INGEST =
      'import { defineWorkflow } from "sluice";\n\nexport const ingest = defineWorkflow("ingest", { handler: async (p: { name: string }) => p.name });\n';
    const upload = (name: string) => ({ name, kind: "data_upload", target: "ingest" });
    const root = makeProject({ "workflows/ingest.ts": INGEST, "sluice.json": config([upload("csv-in")]) });
    expect((await sluice(root, "deploy", "--db", db)).code).toBe(0);
    const machine = tempDir("sluice-trig-srv-machine-");
    const server = spawnSluice(["server", "--release", "--db", db, "--port", "0"], machine);
    await server.waitFor(/server \d+ ready/, 60_000);
    const url = /API and UI: (http:\/\/\S+)/.exec(server.output())![1]!;
    const token = (
      await sluice(machine, "token", "create", "--db", db, "--scope", "operate", "--name", "t")
    ).out.trim();
    const post = (id: string) =>
      fetch(`${url}/api/triggers/${id}/upload?name=a.csv`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "text/csv" },
        body: "x,y\n1,2\n",
      });
    const first = await post("csv-in");
    expect(first.status, await first.clone().text()).toBe(201);
    const runOf = async () => {
      const runs = await sluiceJson<Array<{ status: string; result: unknown }>>(
        machine,
        "runs",
        "--db",
        db,
        "--workflow",
        "ingest",
        "--json",
      );
      return runs.find((r) => r.status === "succeeded") ?? null;
    };
    expect((await eventually(runOf, 60_000)).result).toBe("a.csv");

    writeFiles(root, { "sluice.json": config([upload("csv-in-2")]) });
    const next = await sluice(root, "deploy", "--db", db);
    expect(next.out).toContain("+ trigger sluice.json:csv-in-2");
    expect(next.out).toContain("- trigger sluice.json:csv-in");
    await server.waitFor(/release 2 loaded \(was 1\)/, 20_000);
    await eventually(async () => (await post("csv-in-2")).status === 201, 15_000);
    const old = await post("csv-in");
    expect(old.status).toBe(404);
    server.proc.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  }, 120_000);

  it("a webhook row goes into the release: a --release server serves its URL", async () => {
    const db = join(tempDir("sluice-trig-hook-db-"), "t.db");
    const INGEST =
      'import { defineWorkflow } from "sluice";\n\nexport const ingest = defineWorkflow("ingest", { handler: async (p: { name: string }) => p.name });\n';
    const root = makeProject({
      "workflows/ingest.ts": INGEST,
      "sluice.json": config([{ name: "hook", kind: "webhook", target: "ingest", args: { name: "$.body.who" } }]),
    });
    const deploy = await sluice(root, "deploy", "--db", db);
    expect(deploy.code, deploy.err).toBe(0);
    expect(deploy.out).toContain("+ trigger sluice.json:hook");
    const machine = tempDir("sluice-trig-hook-machine-");
    const server = spawnSluice(["server", "--release", "--db", db, "--port", "0"], machine);
    await server.waitFor(/server \d+ ready/, 60_000);
    const url = /API and UI: (http:\/\/\S+)/.exec(server.output())![1]!;
    const token = (
      await sluice(machine, "token", "create", "--db", db, "--scope", "operate", "--name", "t")
    ).out.trim();
    const res = await fetch(`${url}/api/triggers/hook/webhook`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ who: "ada" }),
    });
    expect(res.status, await res.clone().text()).toBe(202);
    const { run } = (await res.json()) as { run: string };
    const done = await eventually(async () => {
      const runs = await sluiceJson<Array<{ id: string; status: string; result: unknown }>>(
        machine,
        "runs",
        "--db",
        db,
        "--workflow",
        "ingest",
        "--json",
      );
      return runs.find((r) => r.id === run && r.status === "succeeded") ?? null;
    }, 60_000);
    expect(done.result).toBe("ada");
    server.proc.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  }, 120_000);
});
