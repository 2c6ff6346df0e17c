/**
 * Which lines `sluice logs --follow` has yet to print. Following prints each line once when it
 * is *stored* after the follower started, whatever its `ts` (a worker's resent buffer carries
 * the times its lines were logged, maybe long ago; `--since` limits only the first page), so
 * the follower goes by the order lines are stored in: their `seq`, numbered at insertion.
 *
 * Each poll reads the log's last `seq` (`Store.lastLogSeq`), then the lines after a low-water
 * mark up to it, so every read is a short range of the log's primary key: the mark follows the
 * end of the whole log, not the last line that matched the filter (it stayed at the last
 * matching line, and a follow of a quiet workflow, or one that had printed nothing yet, read the
 * whole log at every poll).
 *
 * On Postgres several writers (a server, its lane workers, other servers) commit concurrently,
 * so a line can become visible after lines numbered above it: reading only after the highest
 * `seq` seen would skip it. The mark therefore trails: it is the log's last `seq` as read
 * {@link FOLLOW_SETTLE_MS} earlier, below which every line is visible or never will be (a
 * transaction holding a number that long before it commits is not expected; one rolled back
 * leaves a gap forever). Lines above the mark that are known (printed, or there before the
 * follower started) are remembered, so none is printed twice. At the start the mark is
 * {@link FOLLOW_START_WINDOW} lines below the log's end, and the lines already stored above it
 * are made known without being printed ({@link FollowCursor.known}): a line numbered just
 * before the follower started and committed just after is printed too.
 */

/** How long a line's number may be taken before its transaction commits and it can be read. */
const FOLLOW_SETTLE_MS = 5_000;

/**
 * How far below the log's end (in lines of any run) a follower starts reading: a line numbered
 * that close before it started may still commit after it (one page of lines, re-read for
 * {@link FOLLOW_SETTLE_MS}; a line further down still in flight at the start is not printed).
 */
const FOLLOW_START_WINDOW = 1_000;

/** See the module comment. */
export class FollowCursor {
  private low: number;
  /** Lines above the mark that are not to be printed again. */
  private readonly seen = new Set<number>();
  /** The log's last `seq` as read at the start of each recent poll (`at`, ms), oldest first. */
  private readonly marks: Array<{ at: number; seq: number }> = [];

  /**
   * Starts following a log whose last `seq` was `head` when read at `at` (ms). Before the
   * first poll, pass the lines stored above {@link after} (read now) and the first page to
   * {@link known}.
   */
  constructor(
    head: number,
    at: number,
    private readonly settleMs = FOLLOW_SETTLE_MS,
    window = FOLLOW_START_WINDOW,
  ) {
    this.low = Math.max(0, head - window);
    this.marks.push({ at, seq: head });
  }

  /** Read the lines after this `seq`. */
  get after(): number {
    return this.low;
  }

  /** Lines not to print: there before following started, or printed already. */
  known(lines: readonly { seq: number }[]): void {
    for (const line of lines) if (line.seq > this.low) this.seen.add(line.seq);
  }

  /** Of `lines` just read, those not printed yet, which are now taken as printed. */
  fresh<L extends { seq: number }>(lines: readonly L[]): L[] {
    const out: L[] = [];
    for (const line of lines) {
      if (line.seq <= this.low || this.seen.has(line.seq)) continue;
      this.seen.add(line.seq);
      out.push(line);
    }
    return out;
  }

  /**
   * Ends a poll whose reads began at `at` (ms), after it read the log's last `seq` as `head`:
   * lines up to the last `seq` read {@link FOLLOW_SETTLE_MS} before `at` are settled.
   */
  settle(at: number, head: number): void {
    this.marks.push({ at, seq: head });
    while (this.marks.length > 0 && this.marks[0]!.at <= at - this.settleMs)
      this.low = Math.max(this.low, this.marks.shift()!.seq);
    for (const s of this.seen) if (s <= this.low) this.seen.delete(s);
  }
}
