/**
 * The connection pool and the transaction helper. A transaction that hits a
 * deadlock, a serialization failure or a dropped connection (server restart,
 * `pg_terminate_backend`) before its COMMIT is acknowledged is rolled back by
 * Postgres and retried here on a fresh connection; every store write is safe to
 * re-apply (fenced, conditional or deduplicated), so an ambiguous COMMIT is too.
 */
import type * as pg from "pg";
import { pgDriver } from "./driver.js";
import type { PostgresTarget } from "./config.js";
import { isTransientStorageFailure } from "../storage-error.js";
import { DatabaseUnreachableError } from "./errors.js";

/** Something that runs parameterised SQL: the pool or a client inside a transaction. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/** int8 and numeric as JS numbers (epoch ms and counters fit in 2^53). */
const types = {
  getTypeParser(oid: number, format?: string) {
    if (oid === 20 || oid === 1700) return (v: string) => (v === null ? null : Number(v));
    return pgDriver().types.getTypeParser(oid, format as "text");
  },
};

/** pg settings with Sluice's type parsing. */
export function clientConfig(target: PostgresTarget): pg.ClientConfig {
  return { ...target.pool, types } as pg.ClientConfig;
}

/**
 * SQLSTATEs and driver errors after which a rolled-back transaction may simply run
 * again: the one rule of `storage-error.ts`, plus a client pg reports as not queryable.
 */
function isTransient(err: unknown): boolean {
  return isTransientStorageFailure(err) || /not queryable/i.test((err as { message?: string } | null)?.message ?? "");
}

/** What runs a statement given as a config: a client inside a transaction, or {@link Db.statement} for one alone. */
export interface RunsStatements {
  query<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
}

/**
 * Statements sent in the same round trip as a transaction's COMMIT (parameterless,
 * e.g. a NOTIFY): they take effect only if the transaction commits.
 */
export interface TxEnd {
  beforeCommit: string[];
  /**
   * Sends the COMMIT now, right behind the statement just sent (same round trip), and
   * resolves once it is committed; rejects if the transaction did not commit (a statement
   * before it failed). The body may then only read, outside the transaction.
   */
  commitNow(): Promise<void>;
}

/** The pool plus retrying transactions. */
export class Db implements Queryable {
  readonly pool: pg.Pool;

  constructor(readonly target: PostgresTarget) {
    // Pipeline mode: a query is written at once, without waiting for the answers of those
    // before it on the connection (they are still answered in order), so a transaction's
    // BEGIN travels with its first statement (see `tx`).
    this.pool = new (pgDriver().Pool)({
      ...clientConfig(target),
      max: target.poolSize,
      pipeline: true,
    } as pg.PoolConfig);
    // An idle client whose backend was terminated emits here; the pool drops it.
    this.pool.on("error", () => {});
  }

  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    return this.retrying(() => this.pool.query<R>(text, values as unknown[]));
  }

  /**
   * Runs one statement (e.g. a named one) as its own transaction, retried on transient failures:
   * Postgres commits it before answering (no BEGIN or COMMIT statement, one round trip), with the
   * session's `synchronous_commit`. Only for a write that is whole in one statement and safe to
   * re-apply, as every transaction here is.
   */
  statement<R extends pg.QueryResultRow = pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>> {
    return this.retrying(() => this.pool.query<R>(config));
  }

  /**
   * Runs `fn` in one transaction (READ COMMITTED), retried on transient failures.
   * `setup` statements (parameterless, e.g. `SET LOCAL`) go in the round trip of the
   * BEGIN; what `fn` adds to its {@link TxEnd} goes in the round trip of the COMMIT.
   */
  tx<T>(fn: (c: pg.PoolClient, end: TxEnd) => Promise<T>, setup: readonly string[] = []): Promise<T> {
    return this.retrying(async () => {
      const client = await this.pool.connect();
      // A backend terminated mid-transaction emits 'error' on the checked-out client:
      // the failing query rejects too, which is what we act on.
      const onError = () => {};
      client.on("error", onError);
      let broken: unknown = undefined;
      try {
        // Not awaited: the BEGIN goes out with the first statement of `fn` (one round trip
        // less per transaction). Postgres runs them in order; a BEGIN that failed fails the
        // transaction here, before its COMMIT (only a lost connection makes it fail, and the
        // statements behind it fail with it).
        const release = holdWrites(client);
        const begin = client.query(["BEGIN", ...setup].join("; "));
        begin.catch(() => {});
        // ...in the same socket write as that statement: writes (system calls) are a large part
        // of a short transaction's CPU time on a busy machine.
        client.query = ((...args: Parameters<pg.PoolClient["query"]>) => {
          delete (client as Partial<pg.PoolClient>).query;
          try {
            return (client.query as (...a: unknown[]) => unknown)(...args);
          } finally {
            release();
          }
        }) as pg.PoolClient["query"];
        // A body that sends nothing right away does not hold the BEGIN back for long.
        setImmediate(release);
        let committed: Promise<void> | null = null;
        const end: TxEnd = {
          beforeCommit: [],
          commitNow: () => {
            if (!committed) {
              const sent = client.query([...end.beforeCommit, "COMMIT"].join("; "));
              // Its failure is the transaction's, below; a failed BEGIN leaves it unread.
              sent.catch(() => {});
              committed = (async () => {
                await begin;
                const answers = (await sent) as pg.QueryResult | pg.QueryResult[];
                const last = Array.isArray(answers) ? answers[answers.length - 1] : answers;
                // The COMMIT of a transaction a failed statement aborted answers ROLLBACK.
                if (last?.command !== "COMMIT") throw new Error(`transaction not committed (${last?.command})`);
              })();
              committed.catch(() => {});
            }
            return committed;
          },
        };
        const out = await fn(client, end);
        await end.commitNow();
        return out;
      } catch (err) {
        broken = isTransient(err) ? err : undefined;
        await client.query("ROLLBACK").catch((e) => (broken = e));
        throw err;
      } finally {
        delete (client as Partial<pg.PoolClient>).query;
        client.off("error", onError);
        client.release(broken as Error | undefined);
      }
    });
  }

  /**
   * Runs `statements` as one transaction sent in one socket write and answered in one round
   * trip: the BEGIN with `setup`, each statement without waiting for the one before, and the
   * COMMIT with `beforeCommit`. Resolves with each statement's result once the COMMIT is
   * acknowledged; a statement that fails aborts the transaction (its COMMIT answers ROLLBACK)
   * and its error is thrown. Retried on transient failures as {@link tx}. Only for statements
   * whose parameters do not depend on each other's answers.
   */
  pipelined(
    statements: pg.QueryConfig[],
    setup: readonly string[] = [],
    beforeCommit: readonly string[] = [],
  ): Promise<pg.QueryResult[]> {
    return this.tx((c, end) => {
      const release = holdWrites(c);
      let sent: Array<Promise<pg.QueryResult>>;
      try {
        sent = statements.map((s) => c.query(s));
        for (const s of sent) s.catch(() => {});
        end.beforeCommit.push(...beforeCommit);
        void end.commitNow();
      } finally {
        release();
      }
      return Promise.all(sent);
    }, setup);
  }

  private async retrying<T>(fn: () => Promise<T>, attempts = 8): Promise<T> {
    for (let i = 1; ; i++) {
      try {
        return await fn();
      } catch (err) {
        if (i >= attempts || !isTransient(err)) throw err;
        await new Promise((r) => setTimeout(r, Math.min(1_000, 10 * 2 ** i) * (0.5 + Math.random())));
      }
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/**
 * Holds back what queries write to `client`'s socket until the returned function is
 * called (once; later calls do nothing), so statements sent one after the other without
 * waiting (pipeline mode) leave in one write.
 */
function holdWrites(client: pg.ClientBase): () => void {
  const stream = (client as unknown as { connection?: { stream?: { cork?(): void; uncork?(): void } } }).connection
    ?.stream;
  if (!stream?.cork || !stream.uncork) return () => {};
  stream.cork();
  let held = true;
  return () => {
    if (held) {
      held = false;
      stream.uncork!();
    }
  };
}

/**
 * Sends `statement` and, in the same socket write, what `behind` sends (a COMMIT, the group
 * commit's claims) without waiting for the statement's answer; answers the statement's result
 * and the promise of what went behind. When the statement fails, what went behind is settled
 * first (its failure follows from the statement's) and the statement's error is thrown.
 */
export async function sendWithBehind<T, F>(
  client: pg.ClientBase,
  statement: () => Promise<T>,
  behind: (() => Promise<F>) | undefined,
): Promise<[T, Promise<F> | undefined]> {
  const release = holdWrites(client);
  let sent: Promise<T>;
  let following: Promise<F> | undefined;
  try {
    sent = statement();
    following = behind?.();
  } finally {
    release();
  }
  following?.catch(() => {});
  const result = await sent.catch(async (err) => {
    await following?.catch(() => {});
    throw err;
  });
  return [result, following];
}

/** Turns a connection failure into a {@link DatabaseUnreachableError} naming the target. */
export function unreachable(target: PostgresTarget, err: unknown): Error {
  const e = err as { code?: string; message?: string };
  if (e?.code === "SCHEMA_TOO_NEW" || e?.code === "INVALID_DATABASE_URL") return err as Error;
  const isConnect = e?.code && (/^(E[A-Z]+|08...|28...|3D000|57P03)$/.test(e.code) || e.code === "ETIMEDOUT");
  if (!isConnect && !/timeout|connect|terminated/i.test(e?.message ?? "")) return err as Error;
  return new DatabaseUnreachableError(target.display, e?.message || e?.code || "connection failed", { cause: err });
}
