/**
 * Trace and span ids for `--otel` (the SDK's `idGenerator` option): hex of a pool of random
 * bytes filled by `crypto.randomFillSync` 4 KB at a time, instead of the SDK's default (four
 * `Math.random` calls and `writeUInt32BE`s per trace id). An all-zero id (invalid in W3C trace
 * context) is never returned: its last byte is set to 1, as the SDK's generator does.
 */
import { randomFillSync } from "node:crypto";

const POOL_BYTES = 4096;

/** See the module comment; the shape of the SDK's `IdGenerator`. */
export class PooledIdGenerator {
  private readonly pool = Buffer.allocUnsafeSlow(POOL_BYTES);
  private at = POOL_BYTES;

  /** 16 random bytes as 32 lowercase hex characters. */
  generateTraceId = (): string => this.next(16);

  /** 8 random bytes as 16 lowercase hex characters. */
  generateSpanId = (): string => this.next(8);

  private next(bytes: number): string {
    if (this.at + bytes > POOL_BYTES) {
      randomFillSync(this.pool);
      this.at = 0;
    }
    const start = this.at;
    this.at += bytes;
    let zero = true;
    for (let i = start; i < this.at && zero; i++) zero = this.pool[i] === 0;
    if (zero) this.pool[this.at - 1] = 1;
    return this.pool.toString("hex", start, this.at);
  }
}
