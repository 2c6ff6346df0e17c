/**
 * API tokens: `sluice_<id>_<secret>`. Only a SHA-256 hash of the secret is stored (in the
 * store's key-value records under `api-token:<id>`); checks compare hashes in constant
 * time. The token's `name` is the identity behind it: the approver name, and the
 * `createdBy` of the runs it starts.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Clock } from "../../core/clock.js";
import { InvalidInputError } from "../../sdk/errors.js";
import type { Store } from "../../store/types.js";
import { parseScope, type Scope } from "./scopes.js";

/** A stored token (never the secret itself). */
export interface ApiTokenRecord {
  id: string;
  /** The identity the token acts as (approver name, run creator). */
  name: string;
  scope: Scope;
  createdAt: number;
  /** Hex SHA-256 of the secret part. */
  hash: string;
}

/** A token as listed (without its hash). */
export type ApiTokenInfo = Omit<ApiTokenRecord, "hash">;

const PREFIX = "api-token:";
const TOKEN_RE = /^sluice_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
const NAME_RE = /^[A-Za-z0-9_][A-Za-z0-9_.@+-]{0,63}$/;

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/**
 * Checks a token name.
 * @throws InvalidInputError (code INVALID_TOKEN_NAME)
 */
export function validateTokenName(name: unknown): string {
  if (typeof name === "string" && NAME_RE.test(name)) return name;
  throw new InvalidInputError(
    `invalid token name ${JSON.stringify(name)}: use 1–64 letters, digits and _ . @ + - (it is the approver name, e.g. alice or ci-bot)`,
    { code: "INVALID_TOKEN_NAME" },
  );
}

/** Creates, checks, lists and revokes API tokens kept in a {@link Store}. */
export class ApiTokens {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock = { now: () => Date.now() },
  ) {}

  /** Creates a token. The returned `token` is shown once; only its hash is kept. */
  async create(input: { name: string; scope: Scope | string }): Promise<{ token: string; record: ApiTokenInfo }> {
    const name = validateTokenName(input.name);
    const scope = parseScope(input.scope);
    const id = randomBytes(8).toString("hex");
    const secret = randomBytes(32).toString("base64url");
    const record: ApiTokenRecord = { id, name, scope, createdAt: this.clock.now(), hash: sha256(secret) };
    await this.store.kvPut(PREFIX + id, JSON.stringify(record));
    return { token: `sluice_${id}_${secret}`, record: publicInfo(record) };
  }

  /** The token's record if `token` is a valid, unrevoked token; null otherwise. */
  async verify(token: string): Promise<ApiTokenInfo | null> {
    const m = TOKEN_RE.exec(token);
    if (!m) return null;
    const [, id, secret] = m as unknown as [string, string, string];
    const stored = await this.store.kvGet(PREFIX + id);
    const record = stored ? (JSON.parse(stored) as ApiTokenRecord) : null;
    const want = Buffer.from(record?.hash ?? sha256(`absent:${id}`), "hex");
    const got = Buffer.from(sha256(secret), "hex");
    const same = want.length === got.length && timingSafeEqual(want, got);
    return same && record ? publicInfo(record) : null;
  }

  /** Every token, oldest first. */
  async list(): Promise<ApiTokenInfo[]> {
    const rows = await this.store.kvList(PREFIX);
    return rows
      .map((r) => publicInfo(JSON.parse(r.value) as ApiTokenRecord))
      .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  /** Revokes a token by id; false if there is none. */
  async revoke(id: string): Promise<boolean> {
    if (!/^[0-9a-f]{16}$/.test(id)) return false;
    return this.store.kvDelete(PREFIX + id);
  }
}

function publicInfo(r: ApiTokenRecord): ApiTokenInfo {
  return { id: r.id, name: r.name, scope: r.scope, createdAt: r.createdAt };
}
