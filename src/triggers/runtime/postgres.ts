/**
 * The Postgres consumer (`pg`): installs the capture trigger (`postgres-outbox.ts`), then
 * turns the outbox's changes of this trigger into runs, oldest first, deleting each change
 * once its run is stored. It wakes on `NOTIFY` and polls every second as the safety net, so
 * a lost notification delays a change by at most a second and loses nothing; changes made
 * while no server consumes the trigger wait in the outbox. The message identity is the
 * change's id and capture time. Where it installed the capture is kept in the trigger's state:
 * a row moved to another table first removes the old capture, and a removed row's capture is
 * removed by `postgres-uninstall.ts`.
 */
import { createRequire } from "node:module";
import type * as pg from "pg";
import { TriggerError } from "../errors.js";
import type { KindOptions } from "../kinds.js";
import type { Consumer, ConsumerContext } from "./consumer.js";
import {
  ackChange,
  CHANNEL,
  INSTALLED_KEY,
  type InstalledCapture,
  installCapture,
  pendingChanges,
} from "./postgres-outbox.js";
import { decodeInstalled, removeCapture, sameCapture } from "./postgres-uninstall.js";

const POLL_MS = 1000;
const BATCH = 100;

/** Starts a Postgres consumer. @throws TriggerError `TRIGGER_CONSUMER_FAILED` */
export async function startPostgres(cx: ConsumerContext): Promise<Consumer> {
  const o = cx.spec.options as KindOptions["postgres"];
  const url = o.url ?? cx.env[o.urlEnv ?? ""];
  if (!url)
    throw new TriggerError(
      "TRIGGER_CONSUMER_FAILED",
      `${cx.spec.id}: the environment variable ${o.urlEnv} (the watched database's URL) is not set`,
    );
  const { Client } = createRequire(import.meta.url)("pg") as typeof pg;
  const c = new Client({ connectionString: url });
  let stopped = false;
  let wake: (() => void) | null = null;
  c.on("error", (err) => {
    if (!stopped) cx.fail(err);
  });
  c.on("notification", (n) => {
    if (n.payload === cx.spec.id) wake?.();
  });
  const here: InstalledCapture = {
    ...(o.url !== undefined && { url: o.url }),
    ...(o.urlEnv !== undefined && { urlEnv: o.urlEnv }),
    schema: o.schema,
    table: o.table,
  };
  try {
    const before = decodeInstalled(await cx.kv.get(INSTALLED_KEY));
    if (before && !sameCapture(before, here)) await removeCapture(cx.spec.id, before, cx.env);
    await c.connect();
    await installCapture(c, cx.spec.id, o);
    await cx.kv.put(INSTALLED_KEY, JSON.stringify(here));
    await c.query(`LISTEN ${CHANNEL}`);
  } catch (err) {
    await c.end().catch(() => {});
    throw new TriggerError(
      "TRIGGER_CONSUMER_FAILED",
      `Postgres ${o.schema}.${o.table}: ${(err as Error).message}; check the URL, that the table exists and that the user may create a trigger on it`,
      { cause: err },
    );
  }
  const loop = (async () => {
    while (!stopped) {
      const changes = await pendingChanges(c, cx.spec.id, BATCH);
      for (const ch of changes) {
        if (stopped) return;
        const body = { op: ch.op, table: ch.tbl, row: ch.new_row, old: ch.old_row };
        await cx.deliver({ identity: `pg:${ch.id}:${ch.at}`, bytes: Buffer.from(JSON.stringify(body)) });
        await ackChange(c, ch.id);
      }
      if (changes.length < BATCH && !stopped)
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, POLL_MS);
          wake = () => (clearTimeout(t), resolve());
        });
      wake = null;
    }
  })();
  loop.catch((err: unknown) => {
    if (!stopped) cx.fail(err instanceof Error ? err : new Error(String(err)));
  });
  return {
    async stop() {
      stopped = true;
      wake?.();
      await loop.catch(() => {});
      await c.end().catch(() => {});
    },
  };
}
