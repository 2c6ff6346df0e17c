/**
 * A protobuf writer for OTLP requests, one pass into one reused scratch buffer: nested messages
 * reserve a guessed number of bytes for their length and are shifted only when the guess was
 * wrong (a span's 2 bytes fit 128 B–16 KB, a key/value's 1 byte fits < 128 B); strings are
 * written in place (ASCII in a loop, the rest by `Buffer.write`) and hex ids by
 * `Buffer.write(…, "hex")`. Every varint is minimal, as every protobuf encoder writes them, so the
 * bytes equal those of the SDK's own writer for the same fields in the same order
 * (`otlp-trace-serializer.test.ts`). `finish` copies the request out: the scratch buffer is
 * reused by the next request while the transport may still send (and retry) this one.
 */

/** The size of the scratch buffer a writer starts with; it doubles when a request needs more. */
const INITIAL_BYTES = 64 * 1024;
/** A scratch buffer grown past this (a request with huge attributes) is not kept for the next request. */
const KEEP_BYTES = 4 * 1024 * 1024;
/** A string this short takes at most 3 × 42 = 126 UTF-8 bytes: its length fits one byte. */
const SHORT_STRING = 43;

/** The value of a hex digit as the SDK's `hexToBinary` reads it (`c - 55` for what is not 0-9 or a-f). */
const NIBBLE = Int16Array.from({ length: 256 }, (_, c) =>
  c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c - 55,
);
const nibble = (c: number) => (c < 256 ? NIBBLE[c]! : c - 55);

/** Bytes a varint of this unsigned 32-bit value takes. */
export function varintSize(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

/** See the module comment. */
export class ProtoWriter {
  buf: Buffer = Buffer.allocUnsafe(INITIAL_BYTES);
  pos = 0;

  /** Starts a request (the scratch buffer is kept, unless an unusually large request grew it past KEEP_BYTES). */
  reset(): void {
    this.pos = 0;
    if (this.buf.length > KEEP_BYTES) this.buf = Buffer.allocUnsafe(INITIAL_BYTES);
  }

  /** The request written since `reset`, copied into a buffer of its own. */
  finish(): Uint8Array {
    const out = new Uint8Array(this.pos);
    out.set(this.buf.subarray(0, this.pos));
    return out;
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** One byte (a tag below field 16, a bool). */
  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  /** Raw bytes (a cached encoding). */
  raw(bytes: Uint8Array): void {
    const n = bytes.length;
    this.ensure(n);
    if (n > 64) this.buf.set(bytes, this.pos);
    else for (let i = 0; i < n; i++) this.buf[this.pos + i] = bytes[i]!; // cheaper than `set` for a key
    this.pos += n;
  }

  /** An unsigned 32-bit varint. */
  uvarint(v: number): void {
    this.ensure(5);
    const buf = this.buf;
    while (v > 0x7f) {
      buf[this.pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[this.pos++] = v;
  }

  /**
   * An int64 varint from a JS number (negative numbers in two's complement, 10 bytes), as the
   * SDK's writer encodes `int_value`.
   */
  varint64(value: number): void {
    if (value >= 0 && value <= 0xffffffff) return this.uvarint(value >>> 0);
    this.ensure(10);
    let low: number;
    let high: number;
    if (value >= 0) {
      low = value >>> 0;
      high = (value / 0x100000000) >>> 0;
    } else {
      const abs = Math.abs(value);
      low = ~(abs >>> 0) >>> 0;
      high = ~((abs / 0x100000000) >>> 0) >>> 0;
      low = (low + 1) >>> 0;
      if (low === 0) high = (high + 1) >>> 0;
    }
    const buf = this.buf;
    while (high > 0 || low > 0x7f) {
      buf[this.pos++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    buf[this.pos++] = low & 0x7f;
  }

  /** A little-endian fixed32. */
  fixed32(v: number): void {
    this.ensure(4);
    this.le32(v);
  }

  /** Four little-endian bytes, room already ensured. */
  private le32(v: number): void {
    const buf = this.buf;
    const p = this.pos;
    buf[p] = v & 0xff;
    buf[p + 1] = (v >>> 8) & 0xff;
    buf[p + 2] = (v >>> 16) & 0xff;
    buf[p + 3] = (v >>> 24) & 0xff;
    this.pos = p + 4;
  }

  /** A little-endian double. */
  double(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }

  /**
   * An `HrTime` (`[seconds, nanoseconds]`) as fixed64 nanoseconds, exact for any time up to
   * 2^64 ns: `seconds * 1e9` is split at bit 16 of the seconds so every product stays below
   * 2^53 (the SDK's `writeHrTimeAsFixed64` does the same).
   */
  hrTime(seconds: number, nanos: number): void {
    this.ensure(8);
    const lowSecondsNs = (seconds & 0xffff) * 1e9;
    const highSecondsNs = ((seconds / 0x10000) >>> 0) * 1e9;
    const low = (lowSecondsNs >>> 0) + (((highSecondsNs & 0xffff) * 0x10000) >>> 0) + nanos;
    const high =
      (Math.floor(lowSecondsNs / 0x100000000) + ((highSecondsNs / 0x10000) >>> 0) + Math.floor(low / 0x100000000)) >>>
      0;
    this.le32(low >>> 0);
    this.le32(high);
  }

  /** A length-delimited UTF-8 string (its length varint, then its bytes). */
  string(s: string): void {
    const n = s.length;
    if (n < SHORT_STRING) {
      this.ensure(1 + 3 * n);
      const buf = this.buf;
      const start = this.pos + 1;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) break;
        buf[start + i] = c;
      }
      const len = i === n ? n : buf.write(s, start, "utf8");
      buf[this.pos] = len;
      this.pos = start + len;
      return;
    }
    const len = Buffer.byteLength(s, "utf8");
    this.uvarint(len);
    this.ensure(len);
    this.buf.write(s, this.pos, len, "utf8");
    this.pos += len;
  }

  /**
   * A length-delimited id from its hex form (a 32-char trace id, a 16-char span id), decoded as the
   * SDK's `hexToBinary` decodes it (the same bytes for any string, hex or not). Decoded in JS from
   * a table: for ids this short a call into `Buffer.write(…, "hex")` costs more than the loop.
   */
  hexId(hex: string): void {
    this.decodeHex(hex);
  }

  /**
   * `hexId` through a one-entry cache `slot` (0 trace ids, 1 parent span ids): the spans of a
   * batch come trace by trace, so a span's trace id and parent are mostly those of the span before.
   */
  hexIdCached(hex: string, slot: 0 | 1): void {
    const bytes = this.slotBytes[slot]!;
    if (hex === this.slotHex[slot]) {
      const n = bytes[0]! + 1;
      this.ensure(n);
      for (let i = 0; i < n; i++) this.buf[this.pos + i] = bytes[i]!;
      this.pos += n;
      return;
    }
    const start = this.pos;
    this.decodeHex(hex);
    if (this.pos - start <= bytes.length) {
      this.slotHex[slot] = hex;
      for (let i = start; i < this.pos; i++) bytes[i - start] = this.buf[i]!;
    }
  }

  private readonly slotHex = ["", ""];
  private readonly slotBytes = [new Uint8Array(17), new Uint8Array(17)];

  private decodeHex(hex: string): void {
    const n = hex.length >> 1;
    this.ensure(1 + n);
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = n;
    for (let i = 0; i < n; i++) buf[p++] = (nibble(hex.charCodeAt(2 * i)) << 4) | nibble(hex.charCodeAt(2 * i + 1));
    this.pos = p;
  }

  /** Length-delimited bytes. */
  bytes(b: Uint8Array): void {
    this.uvarint(b.length);
    this.raw(b);
  }

  /** Starts a nested message, reserving `reserve` bytes for its length; pass the result to `end`. */
  begin(reserve: number): number {
    this.ensure(reserve);
    const at = this.pos;
    this.pos += reserve;
    return at;
  }

  /** Ends the nested message begun at `at`: writes its length, shifting it when `reserve` was wrong. */
  end(at: number, reserve: number): void {
    const len = this.pos - at - reserve;
    const size = varintSize(len);
    if (size !== reserve) {
      this.ensure(size - reserve);
      this.buf.copyWithin(at + size, at + reserve, this.pos);
      this.pos += size - reserve;
    }
    const buf = this.buf;
    let v = len;
    let p = at;
    while (v > 0x7f) {
      buf[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[p] = v;
  }
}
