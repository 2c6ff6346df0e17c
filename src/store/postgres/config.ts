/**
 * Reading a Postgres connection setting: `postgres://user:pass@host:5432/db?schema=name`.
 * The `schema` query parameter (or the `schema` option) lets several Sluice
 * installations share one database; it defaults to `sluice`.
 */
import type { PoolConfig } from "pg";
import type { StoreLocation } from "../types.js";
import { InvalidDatabaseUrlError } from "./errors.js";

/** Options of the Postgres store beyond the URL. */
export interface PostgresOptions {
  /** Schema holding Sluice's tables; overrides `?schema=` in the URL. Default `sluice`. */
  schema?: string;
  /** Connections in the pool (besides the LISTEN and leader connections). Default 10, `?pool=` in the URL. */
  poolSize?: number;
  /** Safety-net poll of `watch()` when no notification arrives (ms). Default 1 000. */
  pollMs?: number;
  /** Record every claim and its end in `claim_log` (an audit for operators and tests). `?audit_claims=true`. */
  auditClaims?: boolean;
  /** Name shown in `pg_stat_activity.application_name`. Default `sluice`. */
  applicationName?: string;
  /**
   * Idle pooled connections do not keep the process alive (a producer script exits once
   * its work is done instead of after the pool's idle timeout). Default false.
   */
  allowExitOnIdle?: boolean;
}

/** A parsed connection setting. */
export interface PostgresTarget {
  /** `pg` pool settings (the URL without Sluice's own parameters). */
  pool: PoolConfig;
  schema: string;
  poolSize: number;
  pollMs: number;
  auditClaims: boolean;
  /** The URL without its password, for messages. */
  display: string;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const SLUICE_PARAMS = ["schema", "pool", "audit_claims"];

/** True when `setting` is a Postgres URL rather than a SQLite file path. */
export function isPostgresUrl(setting: string): boolean {
  return /^postgres(ql)?:\/\//i.test(setting);
}

/**
 * Parses a Postgres URL and Sluice's options.
 * @throws InvalidDatabaseUrlError for a malformed URL or schema name
 */
export function parsePostgresTarget(url: string, options: PostgresOptions = {}): PostgresTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (err) {
    throw new InvalidDatabaseUrlError(`invalid Postgres URL: expected postgres://user:password@host:5432/database`, {
      cause: err,
    });
  }
  const params = parsed.searchParams;
  const schema = options.schema ?? params.get("schema") ?? "sluice";
  if (!SCHEMA_NAME.test(schema)) {
    throw new InvalidDatabaseUrlError(
      `invalid schema name ${JSON.stringify(schema)}: use lowercase letters, digits and underscores, starting with a letter or underscore (at most 63)`,
    );
  }
  const poolText = params.get("pool");
  const poolSize = options.poolSize ?? (poolText === null ? 10 : Number(poolText));
  if (!Number.isInteger(poolSize) || poolSize < 1 || poolSize > 1000) {
    throw new InvalidDatabaseUrlError(
      `invalid pool size ${JSON.stringify(poolText ?? poolSize)}: use a whole number from 1 to 1000 (?pool=10)`,
    );
  }
  const auditClaims =
    options.auditClaims ?? ["1", "true", "yes"].includes((params.get("audit_claims") ?? "").toLowerCase());
  for (const p of SLUICE_PARAMS) params.delete(p);
  const display = new URL(parsed.toString());
  if (display.password) display.password = "***";
  return {
    pool: {
      connectionString: parsed.toString(),
      max: poolSize,
      application_name: options.applicationName ?? "sluice",
      // Our own schema first; functions like now_ms() resolve there.
      options: `-c search_path=${schema}`,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: 10_000,
      allowExitOnIdle: options.allowExitOnIdle ?? false,
    },
    schema,
    poolSize,
    pollMs: options.pollMs ?? 1_000,
    auditClaims,
    display: display.toString(),
  };
}

/** Where a Postgres store keeps its data: the server and schema of `target`. */
export function locationOf(target: PostgresTarget): StoreLocation {
  return { kind: "server", url: target.pool.connectionString ?? "", schema: target.schema };
}
