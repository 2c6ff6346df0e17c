/**
 * Secrets at rest: a value Sluice keeps in the database (the key that signs resume links) is
 * stored sealed with AES-256-GCM under a key that is never in the database (`SLUICE_SECRET_KEY`
 * or a key file, see `engine/secret-key.ts`). Whoever reads the database (a backup, a read-only
 * role) cannot forge links. Pure: the key and the IV are passed in or drawn from `node:crypto`.
 *
 * @module
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { SluiceError } from "./errors.js";

const PREFIX = "sealed:v1:";

/** A sealed value could not be opened: it was sealed under another key, or it is damaged. */
export class SecretKeyMismatchError extends SluiceError {
  constructor(what: string) {
    super(
      "SECRET_KEY_MISMATCH",
      `the ${what} stored in the database was sealed under another secret key: give every process that ` +
        "shares this database the same SLUICE_SECRET_KEY (or the same key file), the one it was sealed with",
    );
  }

  /** A wrong key stays wrong on every attempt. */
  override get terminal(): boolean {
    return true;
  }
}

/** The 32-byte AES key for key material of any length (a passphrase or `openssl rand -hex 32`). */
export function deriveSecretKey(material: string): Buffer {
  return createHash("sha256").update(`sluice secret key v1\0${material}`).digest();
}

/** Whether `stored` is a value written by {@link sealSecret}. */
export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

/** Seals `plain` under `key` (32 bytes): `sealed:v1:<iv>.<tag>.<ciphertext>`, base64url. */
export function sealSecret(plain: string, key: Buffer, iv: Buffer = randomBytes(12)): string {
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return `${PREFIX}${[iv, cipher.getAuthTag(), body].map((b) => b.toString("base64url")).join(".")}`;
}

/**
 * Opens a value sealed by {@link sealSecret}.
 * @throws SecretKeyMismatchError when `key` is not the one it was sealed under, or it is damaged
 */
export function openSealedSecret(stored: string, key: Buffer, what = "secret"): string {
  const parts = isSealed(stored) ? stored.slice(PREFIX.length).split(".") : [];
  if (parts.length !== 3) throw new SecretKeyMismatchError(what);
  const [iv, tag, body] = parts.map((p) => Buffer.from(p, "base64url")) as [Buffer, Buffer, Buffer];
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
  } catch {
    throw new SecretKeyMismatchError(what);
  }
}
