/**
 * The Postgres store, loaded on first use. `openStore` answers synchronously, and every process
 * imports it, SQLite ones included; importing the Postgres store's modules there would cost each
 * SQLite process their load time and, worse for a fresh process's first runs, their young-heap
 * survivors (source text, module records): two extra scavenges of ≈ 1.5 ms in the first hundred
 * runs of a cold process (docs/PERFORMANCE.md, "A cold process's first scavenges").
 *
 * The store connects and migrates on first use anyway, so every call but `watch` is asynchronous:
 * the first one imports `store.ts` and builds the {@link PostgresStore}; later calls go straight
 * to it. A malformed URL still fails at open, because the URL is parsed here.
 */
import type { Store } from "../types.js";
import { locationOf, parsePostgresTarget, type PostgresOptions, type PostgresTarget } from "./config.js";
import type { PostgresStore } from "./store.js";

/** The names of the {@link Store} methods that answer with a promise. */
type AsyncMethod = {
  [K in keyof Store]-?: NonNullable<Store[K]> extends (...args: never[]) => Promise<unknown> ? K : never;
}[keyof Store];

/** Every asynchronous method but `close` (which need not load a store never used). */
const FORWARDED = [
  "now",
  "commit",
  "claim",
  "signal",
  "resolveWait",
  "recordApprovalEvent",
  "listApprovalEvents",
  "probeWrite",
  "kvGet",
  "kvPut",
  "kvPutAll",
  "kvDelete",
  "kvSwap",
  "kvList",
  "cancel",
  "retry",
  "reclaimExpired",
  "nextReadyAt",
  "readyByQueue",
  "metricsSnapshot",
  "overview",
  "getRun",
  "getRuns",
  "listRuns",
  "countRuns",
  "getSteps",
  "getLogs",
  "listLogs",
  "lastLogSeq",
  "reanchorDueTimes",
  "deleteFinished",
  "registerWorkflows",
  "removeWorkflows",
  "listWorkflows",
  "getWorkflow",
  "putBundle",
  "getBundle",
  "publishRelease",
  "currentReleaseId",
  "getRelease",
  "listReleases",
  "releaseBundles",
  "syncSchedules",
  "listSchedules",
  "setSchedulePaused",
  "fireSchedule",
  "lead",
  "resign",
] as const satisfies readonly Exclude<AsyncMethod, "close">[];

/** Fails to compile when a new asynchronous method of {@link Store} is missing from {@link FORWARDED}. */
type Unforwarded = Exclude<AsyncMethod, "close" | (typeof FORWARDED)[number]>;
const everyMethodForwarded: [Unforwarded] extends [never] ? true : Unforwarded = true;
void everyMethodForwarded;

type Forwarded = (typeof FORWARDED)[number];
type AnyCall = (...args: unknown[]) => Promise<unknown>;

/**
 * Opens the Postgres store named by `url` without loading it (see the module's comment).
 * @throws InvalidDatabaseUrlError for a malformed URL or schema name
 */
export function openPostgresOnDemand(url: string, options: PostgresOptions = {}): Store & { ready(): Promise<void> } {
  const target = parsePostgresTarget(url, options);
  let loaded: PostgresStore | undefined;
  let loading: Promise<PostgresStore> | undefined;
  let closed = false;
  const load = (): Promise<PostgresStore> => (loading ??= build(target, closed).then((store) => (loaded = store)));

  const forwarded = {} as Record<Forwarded, AnyCall>;
  for (const name of FORWARDED) {
    forwarded[name] = (...args) => {
      if (loaded) return (loaded[name] as AnyCall)(...args);
      return load().then((store) => (store[name] as AnyCall)(...args));
    };
  }
  return {
    ...(forwarded as unknown as Pick<Store, Forwarded>),
    kind: "postgres",
    // As PostgresStore: a suspension's children marked `claimFor` are created leased (`commit.ts`).
    leasesChildren: true,
    location: locationOf(target),
    ready: () => load().then((store) => store.ready()),
    watch(onChange, watchOptions) {
      if (loaded) return loaded.watch(onChange, watchOptions);
      let off: (() => void) | null = null;
      let stopped = false;
      void load().then(
        (store) => {
          if (!stopped) off = store.watch(onChange, watchOptions);
        },
        // The first asynchronous call reports the failure to load; a watch has no one to tell.
        () => {},
      );
      return () => {
        stopped = true;
        off?.();
      };
    },
    async close() {
      closed = true;
      if (loading) await (await load()).close();
    },
  };
}

/** Loads the store's modules and builds it (closed at once when the handle was closed before). */
async function build(target: PostgresTarget, closed: boolean): Promise<PostgresStore> {
  const { PostgresStore } = await import("./store.js");
  const store = new PostgresStore(target);
  if (closed) await store.close();
  return store;
}
