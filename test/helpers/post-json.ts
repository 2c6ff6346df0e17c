/** POSTs JSON to an in-process Sluice app (`app.request`) and reads the JSON answer: the worker protocol tests' one request helper. */
import type { SluiceApp } from "../../src/http/app.js";

/** A JSON answer: its status and parsed body. */
export interface JsonAnswer {
  status: number;
  body: any;
}

/** What a request adds to a plain JSON POST. */
export interface PostJsonOptions {
  /** Sent as `Authorization: Bearer …`. */
  token?: string | null;
  signal?: AbortSignal;
  /** More request headers (e.g. `host`). */
  headers?: Record<string, string>;
}

/** POSTs `body` (none when undefined) to `path` on `app` and answers the status and the parsed JSON body. */
export async function postJson(
  app: SluiceApp,
  path: string,
  body: unknown,
  options: PostJsonOptions = {},
): Promise<JsonAnswer> {
  const res = await app.request(path, {
    method: "POST",
    headers: {
      ...(options.token && { authorization: `Bearer ${options.token}` }),
      "content-type": "application/json",
      ...options.headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: options.signal,
  });
  return { status: res.status, body: await res.json() };
}
