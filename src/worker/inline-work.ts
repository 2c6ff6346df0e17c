/**
 * The inline work of one execution (a step body and its save, a sleep's record, a Python call in
 * flight) that a suspension or the handler's outcome must wait for before it is written.
 */
export class InlineWork {
  private count = 0;
  private waiters: Array<() => void> = [];

  /** Whether any inline work is in flight. */
  get busy(): boolean {
    return this.count > 0;
  }

  /**
   * Marks work begun, for a caller that awaits it in its own frame (`ctx.run`: no wrapper closure
   * and promise per step); pair with {@link end} in a `finally`.
   */
  begin(): void {
    this.count++;
  }

  /** Marks work begun by {@link begin} ended, and wakes whoever waits for none in flight. */
  end(): void {
    this.count--;
    if (this.count === 0 && this.waiters.length > 0) for (const w of this.waiters.splice(0)) w();
  }

  /** Runs `work` counted as inline work. */
  async track<T>(work: () => Promise<T>): Promise<T> {
    this.begin();
    try {
      return await work();
    } finally {
      this.end();
    }
  }

  /** Resolves once no inline work is in flight, a turn after the last ended (work it started may begin meanwhile). */
  async idle(): Promise<void> {
    while (this.count > 0) {
      await new Promise<void>((r) => this.waiters.push(r));
      await new Promise((r) => setImmediate(r));
    }
  }
}
