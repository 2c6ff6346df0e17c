/** Calls to the Sluice HTTP API: JSON in and out, the saved bearer token, errors as {@link ApiError}. */
import type { ApiErrorBody } from "../../../http/api-types";
import { savedToken } from "./auth";

/** A non-2xx answer, with the API's stable error code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly problems: string[] = [],
  ) {
    super(message);
  }
}

/** Headers of every call: the bearer token when one is saved. */
export function authHeaders(): Record<string, string> {
  const token = savedToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** Calls the API and returns its JSON. */
export async function api<T>(
  path: string,
  init: { method?: string; body?: unknown; signal?: AbortSignal } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json", ...authHeaders() };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(path, {
    method: init.method ?? "GET",
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: init.signal,
  });
  const text = await res.text();
  const data = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const e: Partial<ApiErrorBody["error"]> = (data as Partial<ApiErrorBody> | null)?.error ?? {};
    const problems = Array.isArray(e.problems) ? (e.problems as string[]) : [];
    throw new ApiError(res.status, e.code ?? "ERROR", e.message ?? `${res.status} ${res.statusText}`, problems);
  }
  return data as T;
}

/** `encodeURIComponent` for one path segment (run ids and workflow names may hold `/`). */
export const seg = (s: string) => encodeURIComponent(s);
