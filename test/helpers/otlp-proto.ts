/**
 * An independent decoder of an OTLP `ExportTraceServiceRequest` in protobuf (written from
 * opentelemetry/proto trace/v1/trace.proto and common/v1/common.proto, sharing no code with the
 * SDK's or Sluice's encoders) into the OTLP/JSON shape (`resourceSpans[].scopeSpans[].spans[]`,
 * hex ids, nanosecond timestamps and int64 values as decimal strings, bytes as base64). Used by
 * the test receiver (`otlp-receiver.ts`) and to check Sluice's serializer against the SDK's JSON.
 */

type Json = Record<string, unknown>;

/** Reads protobuf wire format. */
class Reader {
  pos = 0;
  constructor(
    private readonly buf: Buffer,
    private readonly endAt = buf.length,
  ) {}

  done(): boolean {
    return this.pos >= this.endAt;
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.endAt) throw new Error("truncated varint");
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return result;
      shift += 7n;
      if (shift > 63n) throw new Error("varint longer than 10 bytes");
    }
  }

  tag(): { field: number; wire: number } {
    const t = Number(this.varint());
    return { field: t >>> 3, wire: t & 7 };
  }

  bytes(): Buffer {
    const len = Number(this.varint());
    if (this.pos + len > this.endAt) throw new Error("truncated length-delimited field");
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  fixed32(): number {
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }

  fixed64(): bigint {
    const v = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return v;
  }

  double(): number {
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }

  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
}

/** Calls `on(field, wire, reader)` for each field of a message; `on` returns false for an unknown field. */
function fields(buf: Buffer, on: (field: number, wire: number, r: Reader) => boolean): void {
  const r = new Reader(buf);
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (!on(field, wire, r)) r.skip(wire);
  }
}

const push = (o: Json, key: string) => ((o[key] as unknown[] | undefined) ?? (o[key] = [])) as unknown[];

function anyValue(buf: Buffer): Json {
  const o: Json = {};
  fields(buf, (f, w, r) => {
    if (f === 1 && w === 2) o.stringValue = r.bytes().toString("utf8");
    else if (f === 2 && w === 0) o.boolValue = r.varint() !== 0n;
    else if (f === 3 && w === 0) o.intValue = BigInt.asIntN(64, r.varint()).toString();
    else if (f === 4 && w === 1) o.doubleValue = r.double();
    else if (f === 5 && w === 2) {
      const values: Json[] = [];
      fields(r.bytes(), (g, gw, rr) => (g === 1 && gw === 2 ? (values.push(anyValue(rr.bytes())), true) : false));
      o.arrayValue = { values };
    } else if (f === 6 && w === 2) {
      const values: Json[] = [];
      fields(r.bytes(), (g, gw, rr) => (g === 1 && gw === 2 ? (values.push(keyValue(rr.bytes())), true) : false));
      o.kvlistValue = { values };
    } else if (f === 7 && w === 2) o.bytesValue = r.bytes().toString("base64");
    else return false;
    return true;
  });
  return o;
}

function keyValue(buf: Buffer): Json {
  const o: Json = { key: "", value: {} };
  fields(buf, (f, w, r) => {
    if (f === 1 && w === 2) o.key = r.bytes().toString("utf8");
    else if (f === 2 && w === 2) o.value = anyValue(r.bytes());
    else return false;
    return true;
  });
  return o;
}

const str = (r: Reader) => r.bytes().toString("utf8");
const hex = (r: Reader) => r.bytes().toString("hex");
const uint = (r: Reader) => Number(r.varint());

function message(buf: Buffer, spec: Record<number, [string, (r: Reader) => unknown, boolean?]>): Json {
  const o: Json = {};
  fields(buf, (f, _w, r) => {
    const entry = spec[f];
    if (!entry) return false;
    const [name, read, repeated] = entry;
    const v = read(r);
    if (repeated) push(o, name).push(v);
    else o[name] = v;
    return true;
  });
  return o;
}

const attr = (r: Reader) => keyValue(r.bytes());
const status = (r: Reader) => message(r.bytes(), { 2: ["message", str], 3: ["code", uint] });
const event = (r: Reader) =>
  message(r.bytes(), {
    1: ["timeUnixNano", (rr) => rr.fixed64().toString()],
    2: ["name", str],
    3: ["attributes", attr, true],
    4: ["droppedAttributesCount", uint],
  });
const link = (r: Reader) =>
  message(r.bytes(), {
    1: ["traceId", hex],
    2: ["spanId", hex],
    3: ["traceState", str],
    4: ["attributes", attr, true],
    5: ["droppedAttributesCount", uint],
    6: ["flags", (rr) => rr.fixed32()],
  });
const span = (r: Reader) =>
  message(r.bytes(), {
    1: ["traceId", hex],
    2: ["spanId", hex],
    3: ["traceState", str],
    4: ["parentSpanId", hex],
    5: ["name", str],
    6: ["kind", uint],
    7: ["startTimeUnixNano", (rr) => rr.fixed64().toString()],
    8: ["endTimeUnixNano", (rr) => rr.fixed64().toString()],
    9: ["attributes", attr, true],
    10: ["droppedAttributesCount", uint],
    11: ["events", event, true],
    12: ["droppedEventsCount", uint],
    13: ["links", link, true],
    14: ["droppedLinksCount", uint],
    15: ["status", status],
    16: ["flags", (rr) => rr.fixed32()],
  });
const scope = (r: Reader) =>
  message(r.bytes(), {
    1: ["name", str],
    2: ["version", str],
    3: ["attributes", attr, true],
    4: ["droppedAttributesCount", uint],
  });
const scopeSpans = (r: Reader) =>
  message(r.bytes(), { 1: ["scope", scope], 2: ["spans", span, true], 3: ["schemaUrl", str] });
const resource = (r: Reader) =>
  message(r.bytes(), { 1: ["attributes", attr, true], 2: ["droppedAttributesCount", uint] });
const resourceSpans = (r: Reader) =>
  message(r.bytes(), { 1: ["resource", resource], 2: ["scopeSpans", scopeSpans, true], 3: ["schemaUrl", str] });

/** Decodes an `ExportTraceServiceRequest`; throws on malformed input. */
export function decodeTraceRequest(body: Uint8Array): { resourceSpans: Json[] } {
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const out = message(buf, { 1: ["resourceSpans", resourceSpans, true] });
  return { resourceSpans: (out.resourceSpans as Json[] | undefined) ?? [] };
}
