/**
 * Static checkpoint-key allocation, mirroring the runtime rule (DESIGN.md "Execution model"): a
 * primitive's key is its name; the same name used again in one execution becomes `name#2`, `name#3`,
 * … in call order.
 *
 * Statically the call order is only known along one path, so the counter forks at mutually exclusive
 * arms (if/else, switch, ternary) and joins them by taking the highest count. A name whose count
 * cannot be known after a construct (arms disagree, a loop or fan-out repeats it, a try may stop
 * early) becomes *uncertain*: later keys for that name are flagged `approximateKey`.
 *
 * @module
 */

/** Counter state saved before an arm and restored for the next one. */
export interface KeySnapshot {
  readonly counts: ReadonlyMap<string, number>;
}

/** A key handed out by {@link KeyCounter.next}. */
export interface AllocatedKey {
  /** `name`, or `name#n` for the n-th use. */
  key: string;
  /** True when earlier uses of the name make the runtime count unknowable statically. */
  uncertain: boolean;
}

/** Allocates checkpoint keys in source order, path by path. */
export class KeyCounter {
  private counts = new Map<string, number>();
  private readonly uncertain = new Set<string>();

  /** The key for the next primitive named `name`. */
  next(name: string): AllocatedKey {
    const n = (this.counts.get(name) ?? 0) + 1;
    this.counts.set(name, n);
    return { key: n === 1 ? name : `${name}#${n}`, uncertain: this.uncertain.has(name) };
  }

  /** The current counts, to restore before walking a sibling arm. */
  snapshot(): KeySnapshot {
    return { counts: new Map(this.counts) };
  }

  /** Goes back to a saved state (before walking the next mutually exclusive arm). */
  restore(snapshot: KeySnapshot): void {
    this.counts = new Map(snapshot.counts);
  }

  /**
   * Continues after mutually exclusive arms: each name takes its highest count, and a name the arms
   * used a different number of times becomes uncertain.
   */
  join(arms: readonly KeySnapshot[]): void {
    const names = new Set<string>();
    for (const arm of arms) for (const name of arm.counts.keys()) names.add(name);
    const joined = new Map<string, number>();
    for (const name of names) {
      const values = arms.map((arm) => arm.counts.get(name) ?? 0);
      const max = Math.max(...values);
      if (values.some((value) => value !== max)) this.uncertain.add(name);
      joined.set(name, max);
    }
    this.counts = joined;
  }

  /** Marks every name whose count changed since `since` as uncertain (loops, fan-outs, try blocks). */
  markChangedSince(since: KeySnapshot): void {
    for (const [name, count] of this.counts) {
      if (count !== (since.counts.get(name) ?? 0)) this.uncertain.add(name);
    }
  }

  /** Whether later keys for `name` are approximate. */
  isUncertain(name: string): boolean {
    return this.uncertain.has(name);
  }
}
