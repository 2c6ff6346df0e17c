/**
 * The metrics of a server's lane workers, served by the server's `/metrics`: each lane
 * worker sends its in-process figures (prom-client's JSON form) over its IPC channel every
 * few seconds and once more as it exits (`worker-link.ts`); the server keeps the latest of
 * each live worker and folds those of exited workers into one retired total, so counters
 * and histograms only grow while the server lives even though lane workers come and go
 * (scale to zero). What a worker counted after its last message before a crash is lost.
 */
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from "prom-client";

/** One process's metrics as prom-client's `Registry.getMetricsAsJSON()` gives them. */
export type MetricsJson = Array<MetricObjectWithValues<MetricValue<string>>>;

/** Sums same-named series of several processes' metrics (prom-client's cluster aggregation). */
async function sumMetrics(parts: readonly MetricsJson[]): Promise<MetricsJson> {
  if (parts.length === 0) return [];
  return (await AggregatorRegistry.aggregate([...parts]).getMetricsAsJSON()) as MetricsJson;
}

/** The latest metrics of live lane workers and the folded total of exited ones. */
export class LaneMetrics {
  private readonly live = new Map<number, MetricsJson>();
  private retired: MetricsJson[] = [];

  /** Keeps the latest metrics of worker `pid`. */
  update(pid: number, metrics: MetricsJson): void {
    this.live.set(pid, metrics);
  }

  /** Worker `pid` exited: its last metrics join the retired total. */
  retire(pid: number): void {
    const last = this.live.get(pid);
    this.live.delete(pid);
    if (last) this.retired.push(last);
  }

  /** Every lane worker's metrics so far (retired ones folded into one part). */
  async parts(): Promise<MetricsJson[]> {
    if (this.retired.length > 1) {
      const taken = this.retired.splice(0);
      this.retired.unshift(await sumMetrics(taken));
    }
    return [...this.retired, ...this.live.values()];
  }
}
