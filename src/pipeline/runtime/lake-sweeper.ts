/**
 * The automatic orphan sweep of the project's lakes (`sluice lake sweep` by itself): every
 * lake is swept about once per interval (default one hour) by one process of those sharing
 * the store — `sluice dev` and `sluice server` run it, workers do not. A lake's turn is claimed
 * in the store (`lake:swept:<name>` swapped from its last sweep time to now), so servers
 * sharing a Postgres store do not sweep one lake twice in an interval, and a restart does not
 * sweep again before the interval is over. Only files no snapshot names and older than the
 * lake's sweep age are removed (`lake/sweep-age.ts`: the operator's setting, else the lake's own
 * DuckLake option `delete_older_than`, else one day), so a write still in flight keeps its files;
 * each pass also removes this machine's staging folders of writers that are gone.
 */
import type { AssetHost } from "../../assets/host.js";
import { sweepOrphans } from "../../lake/orphans.js";
import { listProjectLakes, openProjectLake } from "../../lake/project-lake.js";
import { sweepStaleStaging } from "../../lake/staging-owner.js";
import { sweepAgeMs } from "../../lake/sweep-age.js";
import type { Store } from "../../store/types.js";

/** Settings of the automatic sweep (`SLUICE_LAKE_SWEEP_EVERY`, `SLUICE_LAKE_SWEEP_OLDER_THAN`). */
export interface LakeSweepOptions {
  /** How often each lake is swept. Default one hour. */
  readonly everyMs?: number;
  /** Age of the files swept, for every lake (default: each lake's own, see `lake/sweep-age.ts`). */
  readonly olderThanMs?: number;
  /** Where the sweep reports removed files and failures (default: the pipeline host's log). */
  readonly log?: (line: string) => void;
}

/** Default interval of the automatic sweep. */
const DEFAULT_EVERY_MS = 60 * 60 * 1000;
const SWEPT_PREFIX = "lake:swept:";

/** What one lake's sweep did. */
export interface LakeSweepReport {
  readonly lake: string;
  readonly olderThanMs: number;
  readonly removed: readonly string[];
}

/** Sweeps the project's lakes on a timer. */
export class LakeSweeper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly everyMs: number;

  constructor(
    private readonly store: Store,
    private readonly assets: () => Promise<AssetHost>,
    private readonly options: LakeSweepOptions,
    private readonly say: (line: string) => void,
  ) {
    this.everyMs = options.everyMs ?? DEFAULT_EVERY_MS;
  }

  /** Starts the timer: a pass now, then one every minute (or every interval, when shorter) looks for lakes due. */
  start(): void {
    this.timer = setInterval(() => void this.tick(), Math.min(this.everyMs, 60_000));
    this.timer.unref();
    void this.tick();
  }

  /** Stops the timer and waits for a pass in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One pass (not overlapping another); failures are reported, never thrown. */
  tick(now = Date.now()): Promise<void> {
    this.running ??= this.pass(now)
      .then(() => undefined)
      .catch((err) => this.say(`error: lake sweep: ${(err as Error).message}`))
      .finally(() => (this.running = null));
    return this.running;
  }

  /** Sweeps every lake whose turn it is and this process claims; returns what each did. */
  async pass(now = Date.now()): Promise<LakeSweepReport[]> {
    sweepStaleStaging(undefined, now);
    const host = await this.assets();
    const reports: LakeSweepReport[] = [];
    for (const name of await listProjectLakes(host)) {
      const key = SWEPT_PREFIX + name;
      const last = await this.store.kvGet(key);
      if (last !== null && now - Number(last) < this.everyMs) continue;
      if (!(await this.store.kvSwap(key, last, String(now)))) continue; // another process took this turn
      try {
        reports.push(await this.sweepLake(host, name, now));
      } catch (err) {
        this.say(`error: lake sweep of ${name}: ${(err as Error).message}`);
      }
    }
    return reports;
  }

  private async sweepLake(host: AssetHost, name: string, now: number): Promise<LakeSweepReport> {
    const lake = await openProjectLake(host, name);
    try {
      const olderThanMs = sweepAgeMs(lake.reader.metadata, this.options.olderThanMs);
      const removed = await sweepOrphans(lake.reader, { graceMs: olderThanMs, now });
      if (removed.length)
        this.say(
          `lake sweep: removed ${removed.length} orphan file(s) of lake ${name} older than ${Math.round(olderThanMs / 1000)}s: ${removed.join(", ")}`,
        );
      return { lake: name, olderThanMs, removed };
    } finally {
      await lake.close();
    }
  }
}
