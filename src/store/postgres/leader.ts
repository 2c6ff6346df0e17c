/**
 * Leadership by session advisory lock: the leader holds `pg_try_advisory_lock` on
 * a dedicated connection. When its process dies the server ends the session and
 * frees the lock, and the next `lead` call of another server takes it (within one
 * scheduler tick). A leader checks its connection on every call, so one whose
 * connection was terminated learns it lost the lock and tries again. Server-side TCP
 * keepalives on that connection free the lock within about 11 s even when the
 * leader's host disappears without closing its connection.
 */
import type * as pg from "pg";
import { pgDriver } from "./driver.js";
import type { PostgresTarget } from "./config.js";
import { clientConfig } from "./db.js";
import { LOCK_CLASS } from "./migrate.js";

/** The leaderships this process holds, one connection for all of them. */
export class Leadership {
  private client: pg.Client | null = null;
  private readonly held = new Map<string, string>();

  constructor(
    private readonly target: PostgresTarget,
    private readonly ready: () => Promise<void>,
  ) {}

  /**
   * True while `holder` leads `name` (taking the lock when it is free).
   * @throws the database's error when it cannot answer: whether anyone leads is then unknown (a
   *   lost connection has freed this process's locks; another server may take them), which is not
   *   "standby" (`/api/ready` reports it as unknown)
   */
  async lead(name: string, holder: string): Promise<boolean> {
    const current = this.held.get(name);
    if (current !== undefined && current !== holder) return false;
    try {
      const c = await this.connection();
      if (current === holder) {
        await c.query("UPDATE leaders SET seen = now_ms() WHERE name = $1 AND holder = $2", [name, holder]);
        return true;
      }
      const { rows } = await c.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok", [
        LOCK_CLASS + 2,
        this.key(name),
      ]);
      if (!rows[0]?.ok) return false;
      this.held.set(name, holder);
      await c.query(
        `INSERT INTO leaders (name, holder, since, seen) VALUES ($1, $2, now_ms(), now_ms())
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, since = excluded.since, seen = excluded.seen`,
        [name, holder],
      );
      return true;
    } catch (err) {
      this.drop();
      throw err;
    }
  }

  /** Gives up `name` if `holder` leads it. */
  async resign(name: string, holder: string): Promise<void> {
    if (this.held.get(name) !== holder) return;
    this.held.delete(name);
    const c = this.client;
    if (!c) return;
    await c
      .query("SELECT pg_advisory_unlock($1, hashtext($2))", [LOCK_CLASS + 2, this.key(name)])
      .catch(() => this.drop());
    if (this.held.size === 0) this.drop();
  }

  private key(name: string): string {
    return `${this.target.schema}:${name}`;
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    await this.ready();
    const c = new (pgDriver().Client)(clientConfig(this.target));
    c.on("error", () => {
      if (this.client === c) this.drop();
    });
    try {
      await c.connect();
      // If the leader's host vanishes without closing its socket, the server must still
      // notice within seconds (not the OS default of hours) to free the lock.
      await c.query("SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 2; SET tcp_keepalives_count = 3");
    } catch (err) {
      await c.end().catch(() => {});
      throw err;
    }
    this.client = c;
    return c;
  }

  /** Forgets the connection; the server frees its locks when the session ends. */
  private drop(): void {
    const c = this.client;
    this.client = null;
    this.held.clear();
    if (c) void c.end().catch(() => {});
  }

  /** Releases everything. */
  close(): void {
    this.drop();
  }
}
