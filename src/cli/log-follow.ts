/**
 * Which lines `sluice logs --follow` has yet to print. Lines are numbered (`seq`) when they
 * are inserted, but on Postgres several writers (a server, its lane workers, other servers)
 * commit concurrently, so a line can become visible after lines numbered above it: reading
 * only after the highest `seq` printed would skip it. The follower therefore reads again
 * after a low-water mark, below which every line is printed or will never appear: the
 * highest `seq` it had seen {@link FOLLOW_SETTLE_MS} earlier (a transaction holding a number
 * that long before it commits is not expected; one rolled back leaves a gap forever). Lines
 * above the mark already printed are remembered, so none is printed twice.
 */

/** How long a line's number may be taken before its transaction commits and it can be read. */
const FOLLOW_SETTLE_MS = 5_000;

/** See the module comment. */
export class FollowCursor {
  private low: number;
  private highest: number;
  private readonly printed = new Set<number>();
  /** The highest `seq` seen at the end of each recent poll, oldest first. */
  private readonly marks: Array<{ at: number; seq: number }> = [];

  /** `printedSeqs`: the lines already printed (the first page), ascending. */
  constructor(
    printedSeqs: readonly number[],
    private readonly settleMs = FOLLOW_SETTLE_MS,
  ) {
    // Lines inside the first page's range that commit late are still printed; older ones were not asked for.
    this.low = printedSeqs.length > 0 ? printedSeqs[0]! - 1 : 0;
    this.highest = printedSeqs.at(-1) ?? 0;
    for (const s of printedSeqs) this.printed.add(s);
  }

  /** Read the lines after this `seq`. */
  get after(): number {
    return this.low;
  }

  /** Of `lines` just read, those not printed yet, which are now taken as printed. */
  fresh<L extends { seq: number }>(lines: readonly L[]): L[] {
    const out: L[] = [];
    for (const line of lines) {
      if (line.seq <= this.low || this.printed.has(line.seq)) continue;
      this.printed.add(line.seq);
      if (line.seq > this.highest) this.highest = line.seq;
      out.push(line);
    }
    return out;
  }

  /** Ends a poll at `now` (ms): lines up to the highest `seq` seen {@link FOLLOW_SETTLE_MS} ago are settled. */
  settle(now: number): void {
    this.marks.push({ at: now, seq: this.highest });
    while (this.marks.length > 0 && this.marks[0]!.at <= now - this.settleMs)
      this.low = Math.max(this.low, this.marks.shift()!.seq);
    for (const s of this.printed) if (s <= this.low) this.printed.delete(s);
  }
}
