/**
 * Postgres triggers against the tests' own Postgres: a row trigger captures each change into an
 * outbox in the writing transaction, `sluice dev` turns them into runs and deletes each once its
 * run is stored. Changes made while Sluice is down wait in the outbox; a SIGKILL between the
 * enqueue and the delete leaves exactly one run per change after the restart.
 */
import { describe, expect, it } from "vitest";
import { sql, testDatabase } from "../helpers/postgres.js";
import { eventually } from "../helpers/tmp.js";
import { cliJson, runsOf, startDev, triggerProject } from "./project.js";

describe("Postgres triggers (table changes through an outbox)", () => {
  it("turns inserts into runs, catches up after a restart, and survives a SIGKILL between enqueue and ack", async () => {
    const db = await testDatabase("pgtrig");
    await sql(db, "CREATE TABLE public.orders (id serial PRIMARY KEY, tenant text, amount int)");
    await sql(db, "CREATE TABLE public.tenants (id serial PRIMARY KEY, name text)");
    const root = triggerProject(
      "postgres",
      { url: db, table: "public.orders", events: ["insert"] },
      { url: db, table: "tenants" },
    );
    const outbox = async () =>
      Number(
        (await sql(db, "SELECT count(*)::int AS n FROM sluice_triggers.changes WHERE trigger = 'orders-postgres'"))[0]!
          .n,
      );

    const dev = await startDev(root);
    await dev.waitFor(/trigger orders-postgres: consuming \(postgres\)/);
    for (const [tenant, amount] of [
      ["acme", 1],
      ["acme", 2],
      ["globex", 3],
    ] as const)
      await sql(db, "INSERT INTO public.orders (tenant, amount) VALUES ($1, $2)", [tenant, amount]);
    await sql(db, "UPDATE public.orders SET amount = 10 WHERE id = 1"); // not an "insert": no run
    const runs = await eventually(async () => {
      const r = await runsOf(root, "orders");
      return r.length >= 3 ? r : null;
    }, 20_000);
    expect(runs.map((r) => r.payload).sort((a, b) => a.row.id - b.row.id)).toEqual([
      { op: "insert", table: "public.orders", row: { id: 1, tenant: "acme", amount: 1 }, old: null },
      { op: "insert", table: "public.orders", row: { id: 2, tenant: "acme", amount: 2 }, old: null },
      { op: "insert", table: "public.orders", row: { id: 3, tenant: "globex", amount: 3 }, old: null },
    ]);
    await eventually(async () => (await outbox()) === 0, 10_000);
    const listed = await cliJson(root, ["triggers", "--json"]);
    expect(listed.find((t: any) => t.id === "orders-postgres")).toMatchObject({
      status: "running",
      messages: 3,
      source: expect.stringMatching(/^postgres 127\.0\.0\.1:\d+\/pgtrig_\S+ public\.orders \(insert\)$/),
    });
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);

    // Written while no server consumes the trigger: kept in the outbox.
    await sql(db, "INSERT INTO public.orders (tenant, amount) VALUES ('initech', 4), ('initech', 5)");
    expect(await outbox()).toBe(2);
    const crashing = await startDev(root, { SLUICE_TEST_CRASH_AT: "trigger-after-enqueue" }).catch(() => null);
    // It dies at the first change it enqueues (maybe before its UI line).
    await eventually(async () => (await runsOf(root, "orders")).length === 4, 20_000);
    if (crashing) expect(await crashing.exited).toBe("SIGKILL");
    expect(await outbox()).toBe(2);

    const again = await startDev(root);
    const all = await eventually(async () => {
      const r = await runsOf(root, "orders");
      return r.length >= 5 && (await outbox()) === 0 ? r : null;
    }, 20_000);
    expect(all.map((r) => r.payload.row.id).sort()).toEqual([1, 2, 3, 4, 5]);
    again.proc.kill("SIGTERM");
    expect(await again.exited).toBe(0);
  }, 120_000);
});
