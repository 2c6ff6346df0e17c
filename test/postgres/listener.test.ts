/**
 * The LISTEN connection of a Postgres store (`store/postgres/listener.ts`): a change committed
 * after a watcher was added but before its LISTEN took effect sends its NOTIFY to nobody, so a
 * watcher that asks (`catchUp`, as the engine's run waiters do) is told once the LISTEN is in place. A CLI `enqueue --wait` whose run another process
 * finished within 10 ms waited 5 s for its waiter's full poll (found from a second shell).
 */
import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { channelOf, Listener } from "../../src/store/postgres/listener.js";
import { parsePostgresTarget } from "../../src/store/postgres/config.js";
import { testDatabase, withDatabase } from "../helpers/postgres.js";

const url = await testDatabase("listen");
const target = parsePostgresTarget(withDatabase(url, new URL(url).pathname.slice(1), { schema: "l" }), {
  pollMs: 60_000,
});
const listeners: Listener[] = [];
afterAll(() => listeners.forEach((l) => l.close()));

async function notifyFromElsewhere(): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query("SELECT pg_notify($1, 'elsewhere')", [channelOf("l")]);
  } finally {
    await c.end();
  }
}

describe("Postgres change listener", () => {
  it("tells a catch-up watcher once its LISTEN is in place, for what was committed before it", async () => {
    let letListen!: () => void;
    const gate = new Promise<void>((r) => (letListen = r));
    const listener = new Listener(target, () => gate);
    listeners.push(listener);
    let calls = 0;
    let others = 0;
    listener.add(() => calls++, { othersOnly: true, notifiedOnly: true, catchUp: true });
    // A watcher that did not ask to catch up hears only what is notified while it listens.
    listener.add(() => others++, { othersOnly: true, notifiedOnly: true });
    // Committed while the listener is still connecting: its NOTIFY reaches nobody.
    await notifyFromElsewhere();
    letListen();
    const t0 = Date.now();
    while (calls === 0 && Date.now() - t0 < 5_000) await new Promise((r) => setTimeout(r, 10));
    expect(calls).toBe(1);
    expect(others).toBe(0);
    // Once listening, each NOTIFY from elsewhere reaches both.
    await notifyFromElsewhere();
    while ((calls === 1 || others === 0) && Date.now() - t0 < 5_000) await new Promise((r) => setTimeout(r, 10));
    expect(calls).toBe(2);
    expect(others).toBe(1);
  });
});
