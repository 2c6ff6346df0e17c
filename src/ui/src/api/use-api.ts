/** Loading API data into components: `useApi(path)` gives the data, the error, and `reload`. */
import { useCallback, useEffect, useRef, useState } from "react";
import { api, ApiError } from "./client";

/** The state of one API read. */
export interface ApiState<T> {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  /** Fetches again (keeping the current data on screen meanwhile). */
  reload(): void;
}

/** Reads `path` (null: nothing to read) and re-reads when it changes or on `reload()`. */
export function useApi<T>(path: string | null): ApiState<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(path !== null);
  const [tick, setTick] = useState(0);
  const lastPath = useRef<string | null>(null);
  useEffect(() => {
    if (path === null) return;
    if (lastPath.current !== path) {
      setData(null);
      setLoading(true);
      lastPath.current = path;
    }
    const controller = new AbortController();
    api<T>(path, { signal: controller.signal })
      .then((d) => {
        setData(d);
        setError(null);
      })
      .catch((e: unknown) => {
        if (controller.signal.aborted) return;
        setError(e instanceof ApiError ? e : new ApiError(0, "NETWORK", (e as Error).message));
      })
      .finally(() => !controller.signal.aborted && setLoading(false));
    return () => controller.abort();
  }, [path, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload };
}
