/**
 * Safe JSON bodies: a size limit, a nesting-depth limit checked before parsing (so a
 * hostile body cannot exhaust the stack), and no prototype-pollution keys
 * (`__proto__`, `constructor`, `prototype`) anywhere in the document.
 */
import type { Context } from "hono";
import { BadBodyError, BodyTooLargeError } from "./errors.js";

/** Limits applied to request bodies. */
export interface BodyLimits {
  /** Largest body in bytes. Default 1 MiB. */
  maxBytes: number;
  /** Deepest nesting of arrays and objects. Default 64. */
  maxDepth: number;
}

/** Default {@link BodyLimits}. */
export const DEFAULT_BODY_LIMITS: BodyLimits = { maxBytes: 1024 * 1024, maxDepth: 64 };

/** Object keys refused in JSON bodies: they are how prototype pollution gets in. */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Parses `text` as JSON under the limits.
 * @throws BadBodyError (codes INVALID_JSON, JSON_TOO_DEEP, FORBIDDEN_KEY)
 */
export function parseSafeJson(text: string, maxDepth: number): unknown {
  const depth = jsonDepth(text);
  if (depth > maxDepth)
    throw new BadBodyError(
      `the JSON body is nested ${depth} levels deep, over the limit of ${maxDepth}: flatten it`,
      "JSON_TOO_DEEP",
    );
  let value: unknown;
  try {
    value = JSON.parse(text, (key, v) => {
      if (FORBIDDEN_KEYS.has(key)) throw new ForbiddenKey(key);
      return v;
    });
  } catch (err) {
    if (err instanceof ForbiddenKey) {
      throw new BadBodyError(
        `the JSON body uses the key ${JSON.stringify(err.key)}, which is refused (prototype pollution): rename the field`,
        "FORBIDDEN_KEY",
      );
    }
    throw new BadBodyError(
      `the body is not valid JSON (${(err as Error).message}); example: {"workflow": "hello", "payload": {"name": "world"}}`,
      "INVALID_JSON",
    );
  }
  return value;
}

/** Thrown from the JSON reviver to stop parsing at a refused key. */
class ForbiddenKey extends Error {
  constructor(readonly key: string) {
    super(`forbidden key ${JSON.stringify(key)}`);
  }
}

/** Deepest nesting of `[` and `{` in JSON text, ignoring brackets inside strings. Linear, no recursion. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92 /* \ */) i++;
      else if (ch === 34 /* " */) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 91 /* [ */ || ch === 123 /* { */) max = Math.max(max, ++depth);
    else if (ch === 93 /* ] */ || ch === 125 /* } */) depth--;
  }
  return max;
}

/**
 * Reads the request's JSON body under the limits. An empty body gives `undefined`.
 * A non-empty body must be sent as `application/json`: that also keeps other sites'
 * pages from posting to the API without a CORS preflight.
 * @throws BodyTooLargeError, BadBodyError (INVALID_JSON, JSON_TOO_DEEP, FORBIDDEN_KEY, UNSUPPORTED_MEDIA_TYPE)
 */
export async function readJsonBody(c: Context, limits: BodyLimits): Promise<unknown> {
  const text = await readBodyText(c, limits.maxBytes);
  if (text.trim() === "") return undefined;
  const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json" && !type.endsWith("+json")) {
    throw new BadBodyError(
      `send the body as JSON with "Content-Type: application/json" (got ${JSON.stringify(type || "none")})`,
      "UNSUPPORTED_MEDIA_TYPE",
      415,
    );
  }
  return parseSafeJson(text, limits.maxDepth);
}

/**
 * Reads the body as text, refusing it once it passes `maxBytes` (checked on the
 * declared length first, then on the bytes actually received).
 * @throws BodyTooLargeError
 */
export async function readBodyText(c: Context, maxBytes: number): Promise<string> {
  return Buffer.from(await readBodyBytes(c, maxBytes)).toString("utf8");
}

/**
 * Reads the body as bytes, with the limits of {@link readBodyText} (uploads).
 * @throws BodyTooLargeError
 */
export async function readBodyBytes(c: Context, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(c.req.header("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) throw new BodyTooLargeError(maxBytes);
  // A declared length bounds the body (HTTP framing), so it can be read whole: the node
  // adapter's Request then reads the socket directly instead of through a web stream
  // (≈ 0.3 ms less per request, which the worker protocol pays on every write).
  if (Number.isFinite(declared) && declared >= 0) return Buffer.from(await c.req.raw.arrayBuffer());
  const body = c.req.raw.body;
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
