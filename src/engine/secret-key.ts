/**
 * The key that seals the secrets Sluice keeps in its database (`core/sealed-secret.ts`). It is
 * never stored in the database. In order: the engine option `secretKey`, the environment
 * variable `SLUICE_SECRET_KEY` (what several servers sharing one Postgres must all be given), a
 * key file (`secret.key` beside a SQLite database file, `.sluice/secret.key` in the working
 * folder for a database server; created with mode 0600 on first use), or, for an in-memory
 * database that dies with its process, a random key held in memory.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { InvalidInputError } from "../core/errors.js";
import { deriveSecretKey } from "../core/sealed-secret.js";
import type { StoreLocation } from "../store/types.js";

/** Where the secret key comes from: given material, or a key file. */
export type SecretKeySource = { kind: "given"; material: string; from: string } | { kind: "file"; path: string };

/** Pure: which source applies for these inputs (see the module comment). Memory stores get fresh material. */
export function secretKeySource(input: {
  option?: string | undefined;
  env?: string | undefined;
  location: StoreLocation;
  cwd: string;
}): SecretKeySource {
  if (input.option !== undefined) return { kind: "given", material: input.option, from: "the secretKey option" };
  if (input.env !== undefined && input.env !== "")
    return { kind: "given", material: input.env, from: "SLUICE_SECRET_KEY" };
  if (input.location.kind === "file") return { kind: "file", path: join(dirname(input.location.path), "secret.key") };
  if (input.location.kind === "memory")
    return { kind: "given", material: randomBytes(32).toString("hex"), from: "memory" };
  return { kind: "file", path: join(input.cwd, ".sluice", "secret.key") };
}

/**
 * The 32-byte key of `source`, creating the key file if there is none yet (exclusive create,
 * so two processes starting together agree on one key).
 * @throws InvalidInputError (code INVALID_SECRET_KEY) for given material shorter than 16 characters
 */
export function loadSecretKey(source: SecretKeySource): Buffer {
  if (source.kind === "given") {
    if (source.material.length < 16)
      throw new InvalidInputError(
        `${source.from} is too short (${source.material.length} characters): use at least 16, e.g. the output of \`openssl rand -hex 32\``,
        { code: "INVALID_SECRET_KEY" },
      );
    return deriveSecretKey(source.material);
  }
  try {
    return deriveSecretKey(readFileSync(source.path, "utf8").trim());
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  mkdirSync(dirname(source.path), { recursive: true });
  try {
    writeFileSync(source.path, `${randomBytes(32).toString("hex")}\n`, { flag: "wx", mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  return deriveSecretKey(readFileSync(source.path, "utf8").trim());
}
