/** Where an upload is stored (pure): `<prefix><YYYY-MM-DD>/<sha256 prefix>-<file name>`. */
import { TriggerError } from "./errors.js";

const NAME = /^[\w][\w .()-]{0,199}$/;

/**
 * The object key of an upload. @throws TriggerError `TRIGGER_MESSAGE_INVALID` for a file name
 * with a path, a leading dot or other characters than letters, digits, space, `_ . ( ) -`
 */
export function uploadKey(
  triggerId: string,
  prefix: string | undefined,
  name: string,
  sha256: string,
  at: Date,
): string {
  if (!NAME.test(name))
    throw new TriggerError(
      "TRIGGER_MESSAGE_INVALID",
      `file name ${JSON.stringify(name)} is not allowed: use letters, digits, space and _ . ( ) - (no path), e.g. ?name=orders.csv`,
    );
  const base = prefix ?? `uploads/${triggerId.replace(/[^\w.-]/g, "_")}/`;
  return `${base}${at.toISOString().slice(0, 10)}/${sha256.slice(0, 16)}-${name}`;
}
