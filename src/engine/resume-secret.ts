/**
 * The secret that signs resume links, kept sealed in the database's key-value records as
 * `sealed-secret:resume-links` so every process sharing the database signs and checks links
 * alike, while only processes holding the secret key can read it. A plain secret left by an
 * earlier version (moved to `legacy-secret:resume-links` by a migration) is sealed on first use
 * and its plain copy deleted, so links already sent keep working.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { openSealedSecret, sealSecret } from "../core/sealed-secret.js";
import type { Store } from "../store/types.js";

const SEALED = "sealed-secret:resume-links";
const LEGACY = "legacy-secret:resume-links";

/**
 * Reads (or creates, once across processes) the resume-link secret, opened with `key`.
 * @throws SecretKeyMismatchError when the stored secret was sealed under another key
 */
export async function loadResumeSecret(store: Store, key: Buffer): Promise<string> {
  for (;;) {
    const sealed = await store.kvGet(SEALED);
    if (sealed !== null) {
      const plain = openSealedSecret(sealed, key, "resume-link secret");
      if ((await store.kvGet(LEGACY)) !== null) await store.kvDelete(LEGACY);
      return plain;
    }
    const plain = (await store.kvGet(LEGACY)) ?? randomBytes(32).toString("base64url");
    // Compare-and-set: of two processes creating it at once, one writes and both read that one.
    if (await store.kvSwap(SEALED, null, sealSecret(plain, key))) {
      await store.kvDelete(LEGACY);
      return plain;
    }
  }
}
