/**
 * Counters and histograms that cost next to nothing to record: a series is a plain array of
 * bucket counts (or one number) found by its label values, without prom-client. They answer
 * `get()` in prom-client's JSON form, so a prom-client `Registry` serves them (text format,
 * `getMetricsAsJSON`, `Registry.merge`, `AggregatorRegistry.aggregate`) exactly as it serves its
 * own `Counter` and `Histogram`. prom-client's `observe` hashes the label object on every call
 * (about 5 µs); on the hot path that was a few per cent of a one-shot run's cost, and loading
 * prom-client in the middle of a run's work cost about 60 ms (see `docs/PERFORMANCE.md`).
 */

/** What `get()` returns: prom-client's `MetricObjectWithValues`. */
export interface TallyJson {
  name: string;
  help: string;
  type: "counter" | "histogram";
  aggregator: "sum";
  values: Array<{ labels: Record<string, string | number>; value: number; metricName?: string }>;
}

/**
 * Series found by their label values, one map level per label name (no key string built per
 * observation): `find` walks the levels, `add` creates the missing ones.
 */
class SeriesIndex<S> {
  private root = new Map<string, unknown>();
  readonly all: S[] = [];

  constructor(private readonly names: readonly string[]) {}

  find(labels: Readonly<Record<string, string>>): S | undefined {
    if (this.names.length === 0) return this.root.get("") as S | undefined;
    let node: unknown = this.root;
    for (let i = 0; i < this.names.length && node !== undefined; i++)
      node = (node as Map<string, unknown>).get(labels[this.names[i]!]!);
    return node as S | undefined;
  }

  add(labels: Readonly<Record<string, string>>, series: S): S {
    let node = this.root;
    const last = this.names.length - 1;
    for (let i = 0; i < last; i++) {
      const value = labels[this.names[i]!]!;
      let next = node.get(value) as Map<string, unknown> | undefined;
      if (!next) node.set(value, (next = new Map()));
      node = next;
    }
    node.set(last < 0 ? "" : labels[this.names[last]!]!, series);
    this.all.push(series);
    return series;
  }
}

interface Config<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
}

/** A counter (prom-client `Counter` semantics: only goes up; an unlabelled one reports 0 from the start). */
export class TallyCounter<L extends string = never> {
  readonly name: string;
  readonly help: string;
  readonly type = "counter";
  readonly aggregator = "sum";
  private readonly labelNames: readonly L[];
  private series: SeriesIndex<{ labels: Record<string, string>; value: number }>;

  constructor(config: Config<L>) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames ?? [];
    this.series = new SeriesIndex(this.labelNames);
  }

  /** Adds `n` (default 1) to the unlabelled series. */
  inc(n?: number): void;
  /** Adds `n` (default 1) to the series of `labels`. */
  inc(labels: Readonly<Record<L, string>>, n?: number): void;
  inc(a?: number | Readonly<Record<L, string>>, b?: number): void {
    const labels = typeof a === "object" ? a : ({} as Record<L, string>);
    const n = typeof a === "number" ? a : (b ?? 1);
    const s = this.series.find(labels);
    if (s) s.value += n;
    else this.series.add(labels, { labels: { ...labels }, value: n });
  }

  /** The counter in prom-client's JSON form. */
  async get(): Promise<TallyJson> {
    const values = this.series.all.map((s) => ({ labels: { ...s.labels }, value: s.value }));
    if (this.labelNames.length === 0 && values.length === 0) values.push({ labels: {}, value: 0 });
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Forgets every series (prom-client's `reset`). */
  reset(): void {
    this.series = new SeriesIndex(this.labelNames);
  }
}

interface HistogramSeries {
  labels: Record<string, string>;
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  counts: number[];
  sum: number;
  count: number;
}

/** A histogram (prom-client `Histogram` semantics: cumulative `le` buckets, `_sum`, `_count`). */
export class TallyHistogram<L extends string = never> {
  readonly name: string;
  readonly help: string;
  readonly type = "histogram";
  readonly aggregator = "sum";
  private readonly labelNames: readonly L[];
  private readonly buckets: readonly number[];
  private series: SeriesIndex<HistogramSeries>;

  constructor(config: Config<L> & { buckets: readonly number[] }) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames ?? [];
    this.buckets = [...config.buckets].sort((a, b) => a - b);
    this.series = this.empty();
  }

  /** No series, but the one of an unlabelled histogram (prom-client reports it at zero). */
  private empty(): SeriesIndex<HistogramSeries> {
    const index = new SeriesIndex<HistogramSeries>(this.labelNames);
    if (this.labelNames.length === 0) index.add({}, this.fresh({}));
    return index;
  }

  private fresh(labels: Record<string, string>): HistogramSeries {
    return { labels, counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0, count: 0 };
  }

  /** Records `value` in the unlabelled series. */
  observe(value: number): void;
  /** Records `value` in the series of `labels`. */
  observe(labels: Readonly<Record<L, string>>, value: number): void;
  observe(a: number | Readonly<Record<L, string>>, b?: number): void {
    const labels = typeof a === "object" ? a : ({} as Record<L, string>);
    const value = typeof a === "number" ? a : b!;
    if (!Number.isFinite(value)) throw new TypeError(`${this.name}: not a finite number: ${value}`);
    const s = this.series.find(labels) ?? this.series.add(labels, this.fresh({ ...labels }));
    const bounds = this.buckets;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    s.counts[i]! += 1;
    s.sum += value;
    s.count += 1;
  }

  /** The histogram in prom-client's JSON form (bucket series first, then `_sum` and `_count`, per series). */
  async get(): Promise<TallyJson> {
    const values: TallyJson["values"] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.series.all) {
      let acc = 0;
      for (let i = 0; i < this.buckets.length; i++) {
        acc += s.counts[i]!;
        values.push({ labels: { le: this.buckets[i]!, ...s.labels }, value: acc, metricName: bucket });
      }
      values.push({ labels: { le: "+Inf", ...s.labels }, value: s.count, metricName: bucket });
      values.push({ labels: { ...s.labels }, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...s.labels }, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Forgets every series (prom-client's `reset`); an unlabelled histogram starts again at zero. */
  reset(): void {
    this.series = this.empty();
  }
}
