/**
 * Trigger rows that change under a running project, against the tests' own Postgres and a real
 * `sluice dev`: sluice.json edited while `sluice dev` watches is followed (a row added starts
 * consuming, a bad file is refused and the running rows stay, a row removed stops), and a
 * removed Postgres row takes its table trigger, its pending changes and (once unused) the
 * `sluice_triggers` schema out of the user's database, live or at the next start; a
 * `pipeline.json` broken while editing removes nothing (its rows cannot be read, not removed).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sql, testDatabase } from "../helpers/postgres.js";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { delay, eventually } from "../helpers/tmp.js";
import { runsOf, startDev, triggerProject } from "./project.js";

const WORKFLOW = `import { defineWorkflow } from "tako.sh";
export default defineWorkflow<{ row: { id: number } }>("orders", { handler: async (p) => ({ id: p.row.id }) });
`;

function config(rows: unknown[]): string {
  return JSON.stringify({ triggers: rows }, null, 2);
}

async function tableTriggers(db: string, table: string): Promise<string[]> {
  const rows = await sql(
    db,
    "SELECT tgname FROM pg_trigger WHERE tgrelid = to_regclass($1) AND NOT tgisinternal ORDER BY tgname",
    [table],
  );
  return rows.map((r) => r.tgname as string);
}

async function outboxSchema(db: string): Promise<boolean> {
  return (await sql(db, "SELECT to_regnamespace('sluice_triggers') IS NOT NULL AS here"))[0]!.here as boolean;
}

describe("trigger rows that change (sluice.json reloaded by sluice dev, Postgres capture removed)", () => {
  it("sluice dev follows sluice.json: a row added consumes, a bad file is refused, a row removed drops its table trigger", async () => {
    const db = await testDatabase("pgrm");
    await sql(db, "CREATE TABLE public.orders (id serial PRIMARY KEY, amount int)");
    const root = makeProject({ "sluice.json": config([]), "workflows/orders.ts": WORKFLOW }, "sluice-trigger-reload-");
    const dev = spawnSluice(["dev", ".", "--port", "0"], root, { SLUICE_TRIGGER_TICK_MS: "200" });
    await dev.waitFor(/UI: http:\/\/127\.0\.0\.1:\d+/, 30_000);
    expect(await tableTriggers(db, "public.orders")).toEqual([]);

    const row = { name: "orders-pg", kind: "postgres", target: "orders", url: db, table: "public.orders" };
    writeFileSync(join(root, "sluice.json"), config([row]));
    await dev.waitFor(/reloaded sluice\.json: triggers orders-pg/, 15_000);
    await dev.waitFor(/trigger orders-pg: consuming \(postgres\)/, 15_000);
    expect(await tableTriggers(db, "public.orders")).toEqual(["sluice_orders-pg"]);
    await sql(db, "INSERT INTO public.orders (amount) VALUES (1)");
    await eventually(async () => (await runsOf(root, "orders")).length === 1, 15_000);

    // A bad row: refused with the reason, the running trigger keeps consuming (its change leaves
    // the outbox once its run is stored; the CLI itself refuses the bad file meanwhile).
    writeFileSync(join(root, "sluice.json"), config([{ ...row, kind: "carrier-pigeon" }]));
    await dev.waitFor(
      /error: sluice\.json not reloaded, the running triggers stay as they were: .*"kind" must be one of/,
    );
    await sql(db, "INSERT INTO public.orders (amount) VALUES (2)");
    await eventually(
      async () => Number((await sql(db, "SELECT count(*)::int AS n FROM sluice_triggers.changes"))[0]!.n) === 0,
      15_000,
    );

    writeFileSync(join(root, "sluice.json"), config([row]));
    await dev.waitFor(
      /reloaded sluice\.json: triggers orders-pg\n[^]*reloaded sluice\.json: triggers orders-pg/,
      15_000,
    );
    expect((await runsOf(root, "orders")).map((r) => r.payload.row.amount).sort()).toEqual([1, 2]);

    writeFileSync(join(root, "sluice.json"), config([]));
    await dev.waitFor(/reloaded sluice\.json: triggers \(none\)/, 15_000);
    await dev.waitFor(
      /trigger orders-pg: removed; its table trigger on public\.orders was dropped \(and the sluice_triggers schema, now unused\)/,
      15_000,
    );
    expect(await tableTriggers(db, "public.orders")).toEqual([]);
    expect(await outboxSchema(db)).toBe(false);
    await sql(db, "INSERT INTO public.orders (amount) VALUES (3)");
    await delay(1000);
    expect((await runsOf(root, "orders")).length).toBe(2);
    const listed = spawnSluice(["triggers", "--json"], root);
    expect(await listed.exited).toBe(0);
    expect(JSON.parse(listed.stdout())).toEqual([]);
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 90_000);

  it("a row removed while no server runs: the next start drops its table trigger and pending changes, and keeps another trigger's", async () => {
    const db = await testDatabase("pgrm2");
    await sql(db, "CREATE TABLE public.orders (id serial PRIMARY KEY, amount int)");
    await sql(db, "CREATE TABLE public.refunds (id serial PRIMARY KEY, amount int)");
    const orders = { name: "orders-pg", kind: "postgres", target: "orders", url: db, table: "orders" };
    const refunds = { name: "refunds-pg", kind: "postgres", target: "orders", url: db, table: "public.refunds" };
    const root = makeProject(
      { "sluice.json": config([orders, refunds]), "workflows/orders.ts": WORKFLOW },
      "sluice-trigger-removed-",
    );
    const first = await startDev(root);
    await first.waitFor(/trigger orders-pg: consuming/);
    await first.waitFor(/trigger refunds-pg: consuming/);
    first.proc.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    // Written while no server runs: captured in the outbox.
    await sql(db, "INSERT INTO public.orders (amount) VALUES (1), (2)");
    await sql(db, "INSERT INTO public.refunds (amount) VALUES (5)");
    const pending = async (trigger: string) =>
      Number(
        (await sql(db, "SELECT count(*)::int AS n FROM sluice_triggers.changes WHERE trigger = $1", [trigger]))[0]!.n,
      );
    expect(await pending("orders-pg")).toBe(2);

    writeFileSync(join(root, "sluice.json"), config([refunds]));
    const second = await startDev(root);
    await second.waitFor(/trigger orders-pg: removed; its table trigger on public\.orders was dropped\n/);
    expect(await tableTriggers(db, "public.orders")).toEqual([]);
    expect(await tableTriggers(db, "public.refunds")).toEqual(["sluice_refunds-pg"]);
    expect(await pending("orders-pg")).toBe(0);
    const runs = await eventually(async () => {
      const r = await runsOf(root, "orders");
      return r.length >= 1 ? r : null;
    }, 15_000);
    await delay(500);
    expect((await runsOf(root, "orders")).map((r) => r.payload.table)).toEqual(["public.refunds"]);
    expect(runs.length).toBe(1);
    second.proc.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  }, 90_000);

  it("a pipeline.json broken while sluice dev watches keeps its step's table trigger and the changes captured meanwhile", async () => {
    const db = await testDatabase("pgrm3");
    await sql(db, "CREATE TABLE public.orders (id serial PRIMARY KEY, tenant text, amount int)");
    await sql(db, "CREATE TABLE public.tenants (id serial PRIMARY KEY, name text)");
    const root = triggerProject("postgres", { url: db, table: "public.orders" }, { url: db, table: "tenants" });
    const dev = spawnSluice(["dev", ".", "--port", "0"], root, { SLUICE_TRIGGER_TICK_MS: "200" });
    await dev.waitFor(/trigger f\/shop\/tenant:postgres: consuming \(postgres\)/, 30_000);
    expect(await tableTriggers(db, "public.tenants")).toEqual(["sluice_f/shop/tenant:postgres"]);
    const good = readFileSync(join(root, "f/shop/pipeline.json"), "utf8");

    writeFileSync(join(root, "f/shop/pipeline.json"), good.slice(0, -2)); // a typo: the JSON ends early
    await delay(2500); // several rescans and trigger syncs
    expect(dev.output()).not.toMatch(/tenant:postgres: removed/);
    expect(await tableTriggers(db, "public.tenants")).toEqual(["sluice_f/shop/tenant:postgres"]);
    await sql(db, "INSERT INTO public.tenants (name) VALUES ('acme')");

    writeFileSync(join(root, "f/shop/pipeline.json"), good);
    const runs = await eventually(async () => {
      const r = await runsOf(root, "f/shop/tenant");
      return r.length >= 1 ? r : null;
    }, 30_000);
    expect(runs.length).toBe(1);
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 90_000);
});
