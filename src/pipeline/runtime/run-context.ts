/**
 * The context of one running pipeline script: its member, partition, metadata and the
 * assets it writes. When the script succeeds, each write is checkpointed on the run as an
 * `asset` step (through the execution's fenced, group-committed save) and indexed per
 * asset and slice for the status views (`written-index.ts`). The pipeline host that started the run keeps
 * its context by execution (`PipelineServices.bindRun`); SDK helpers reach it through
 * the engine of the calling code (`sdk-host.ts`).
 */
import type { AssetHost } from "../../assets/host.js";
import { currentScope } from "../../sdk/runtime.js";
import type { Store } from "../../store/types.js";
import type { Execution } from "../../worker/execution.js";
import { parseAssetUri } from "../asset-uri.js";
import type { MemberScript } from "./catalog.js";
import type { RunMeta } from "./meta.js";
import { type WrittenEntry, writtenKey, writtenSlice } from "./written-index.js";

/** An asset write of a run. */
export interface RecordedWrite {
  /** Canonical concrete URI, e.g. `s3://lake/2026-05-16/x.parquet`. */
  readonly uri: string;
  /** What wrote it (`writeS3File`, `COPY … TO`, `static`, …). */
  readonly via: string;
  readonly at: number;
  /** The slice written, when the write reported it (a lake write: `partition` undefined for the whole table). */
  readonly slice?: { readonly partition?: string };
}

/** One running pipeline script. */
export class PipelineRunContext {
  private readonly recorded = new Map<string, RecordedWrite>();
  private lakeWrites = 0;

  constructor(
    readonly assets: AssetHost,
    readonly store: Store,
    readonly member: MemberScript,
    readonly exec: Execution,
    readonly meta: RunMeta,
    /** The run's resolved partition (absent for unpartitioned runs). */
    readonly partition: string | undefined,
    /** The chain's fire time (epoch ms). */
    readonly firedAt: number,
  ) {}

  /** The run id. */
  get runId(): string {
    return this.exec.run.id;
  }

  /** Every asset this run has written so far, in write order. */
  writes(): RecordedWrite[] {
    return [...this.recorded.values()];
  }

  /**
   * The number of this lake write among the attempt's `ducklake()` writes (1, 2, …, in call
   * order): with the run id it names the write across attempts, so a retry can find what an
   * earlier attempt committed (`runners/append-retry.ts`).
   */
  nextLakeWrite(): number {
    return ++this.lakeWrites;
  }

  /** Appends a line to the run's log. */
  log(level: "debug" | "info" | "warn" | "error", message: string): void {
    this.exec.log(level, message, null);
  }

  /**
   * Notes that this run wrote `uri` (validated, once per URI). The writes become `asset`
   * checkpoints of the run when it succeeds ({@link flushWrites}): a failed attempt leaves
   * none, so a retry starts from a clean checkpoint. `slice` is the slice the write reported
   * (a lake write's), else the status index takes it from the script ({@link writtenSlice}).
   * @throws AssetUriError for an invalid URI
   */
  async recordWrite(uri: string, via: string, slice?: { partition?: string }): Promise<void> {
    const asset = parseAssetUri(uri);
    if (!this.recorded.has(asset.uri))
      this.recorded.set(asset.uri, { uri: asset.uri, via, at: Date.now(), ...(slice && { slice }) });
  }

  /**
   * Checkpoints every noted write as an `asset` step (one group-committed save, fenced by
   * the run's lease) and updates the per-asset index.
   * @throws LeaseLostError when the run's lease is gone
   */
  async flushWrites(): Promise<void> {
    const writes = this.writes();
    if (writes.length === 0) return;
    const steps = writes.map((w) => {
      const { key, position } = this.exec.nextCall(`asset:${w.uri}`);
      const value = JSON.stringify({ uri: w.uri, partition: this.partition ?? null, via: w.via, at: w.at });
      return { key, kind: "asset" as const, target: w.uri, status: "done" as const, value, position };
    });
    await this.exec.save(steps);
    for (const w of writes) {
      const partition = w.slice ? w.slice.partition : writtenSlice(this.member, this.partition, w.uri);
      const entry: WrittenEntry = {
        run: this.runId,
        script: this.member.path,
        at: w.at,
        ...(this.partition !== undefined && partition !== this.partition && { runPartition: this.partition }),
      };
      await this.store.kvPut(writtenKey(w.uri, partition), JSON.stringify(entry));
    }
  }
}

/** The execution of the calling code, if it runs inside a run. */
export function currentExecution(): Execution | undefined {
  const exec = currentScope()?.execution as Partial<Execution> | undefined;
  return exec && typeof exec.save === "function" && typeof exec.nextCall === "function"
    ? (exec as Execution)
    : undefined;
}
