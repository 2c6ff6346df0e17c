/**
 * The resume-link secret at rest (issue: "the signing secret is stored in plain text in the
 * database"): sealed under a key that is not in the database, a plain secret from an earlier
 * version migrated and sealed (old links keep working), a wrong key refused by name.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { signResumeToken, verifyResumeToken } from "../../src/core/resume-token.js";
import { secretKeySource } from "../../src/engine/secret-key.js";
import { createEngine, type Engine } from "../../src/index.js";
import { MIGRATIONS } from "../../src/store/sqlite/migrations/index.js";
import { tempDir } from "../helpers/tmp.js";

const dir = tempDir();
let n = 0;
const engines: Engine[] = [];
function engine(database: string, secretKey?: string) {
  const e = createEngine({ database, worker: false, scheduler: false, ...(secretKey ? { secretKey } : {}) });
  engines.push(e);
  return e;
}
afterEach(async () => {
  while (engines.length) await engines.pop()!.stop();
});

/** Every value in the file's meta table (where the secret used to live in plain text). */
function metaValues(path: string): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare("SELECT value FROM meta").all() as Array<{ value: string }>).map((r) => r.value);
  } finally {
    db.close();
  }
}

describe("the resume-link secret at rest", () => {
  it("is sealed in the database under a key file beside it (mode 0600); the plain secret is nowhere in the file", async () => {
    const path = join(dir, `s${n++}.db`);
    const secret = await engine(path).resumeSecret();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(metaValues(path).some((v) => v.includes(secret))).toBe(false);
    expect(readFileSync(path).includes(Buffer.from(secret))).toBe(false);
    const keyFile = join(dir, "secret.key");
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    // A second process on the same file reads the same secret through the same key file.
    expect(await engine(path).resumeSecret()).toBe(secret);
  });

  it("keeps the plain secret an earlier version stored: links already sent still verify, and the plain copy is gone", async () => {
    const path = join(dir, `legacy${n++}.db`);
    const old = new Database(path);
    for (const m of MIGRATIONS.slice(0, 5)) old.exec(m);
    old.pragma("user_version = 5");
    old.prepare("INSERT INTO meta (key, value) VALUES (?, ?)").run("secret:resume-links", "plain-secret-from-v5");
    old.close();
    const claims = { runId: "r1", key: "approve", action: "resume" as const, approver: null, exp: Date.now() + 60_000 };
    const token = signResumeToken("plain-secret-from-v5", claims);

    const secret = await engine(path, "a long enough secret key for tests").resumeSecret();
    expect(secret).toBe("plain-secret-from-v5");
    expect(verifyResumeToken(secret, token, claims, Date.now())).toMatchObject({ runId: "r1" });
    expect(metaValues(path).some((v) => v.includes("plain-secret-from-v5"))).toBe(false);
  });

  it("refuses a database sealed under another key with SECRET_KEY_MISMATCH, and a short key with INVALID_SECRET_KEY", async () => {
    const path = join(dir, `k${n++}.db`);
    await engine(path, "first key, sixteen chars or more").resumeSecret();
    await expect(engine(path, "second key, also long enough").resumeSecret()).rejects.toMatchObject({
      code: "SECRET_KEY_MISMATCH",
      message: expect.stringMatching(/same SLUICE_SECRET_KEY/),
    });
    await expect(engine(path, "short").resumeSecret()).rejects.toMatchObject({ code: "INVALID_SECRET_KEY" });
  });

  it("takes the key from the option, then SLUICE_SECRET_KEY, then a key file (beside a SQLite file, in .sluice/ for a server)", () => {
    const file = { kind: "file" as const, path: "/data/x/sluice.db" };
    expect(secretKeySource({ option: "o".repeat(16), env: "e".repeat(16), location: file, cwd: "/p" })).toMatchObject({
      kind: "given",
      from: "the secretKey option",
    });
    expect(secretKeySource({ env: "e".repeat(16), location: file, cwd: "/p" })).toMatchObject({
      kind: "given",
      from: "SLUICE_SECRET_KEY",
    });
    expect(secretKeySource({ env: "", location: file, cwd: "/p" })).toEqual({
      kind: "file",
      path: "/data/x/secret.key",
    });
    expect(
      secretKeySource({ location: { kind: "server", url: "postgres://db/app", schema: "sluice" }, cwd: "/p" }),
    ).toEqual({
      kind: "file",
      path: "/p/.sluice/secret.key",
    });
    expect(secretKeySource({ location: { kind: "memory" }, cwd: "/p" })).toMatchObject({
      kind: "given",
      from: "memory",
    });
  });
});
