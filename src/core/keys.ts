/**
 * Checkpoint keys (DESIGN.md "Execution model"): a primitive's key is its explicit
 * name, or the task's name; the same name used again in one execution becomes
 * `name#2`, `name#3`, … in call order.
 */
export class KeyAllocator {
  private readonly counts = new Map<string, number>();

  /** The key the next call named `name` will get, without taking it. */
  peek(name: string): string {
    const n = (this.counts.get(name) ?? 0) + 1;
    return n === 1 ? name : `${name}#${n}`;
  }

  /** The key for the next call named `name`. */
  next(name: string): string {
    const n = (this.counts.get(name) ?? 0) + 1;
    this.counts.set(name, n);
    return n === 1 ? name : `${name}#${n}`;
  }
}
