/**
 * A tiny OTLP/HTTP trace receiver on 127.0.0.1, for both encodings a collector takes
 * (`application/x-protobuf`, decoded by `otlp-proto.ts`, and `application/json`): collects the
 * spans that `sluice --otel` processes export, with the exporting process's `service.name` and
 * `service.instance.id`, and the content type of each request. A stand-in for a collector, which
 * cannot be installed here.
 */
import { createServer, type Server } from "node:http";
import { gunzipSync } from "node:zlib";
import { decodeTraceRequest } from "./otlp-proto.js";
import type { SpanView } from "../tracing/spans.js";

/** A span as received, with the resource that exported it. */
export interface ReceivedSpan extends SpanView {
  service: string;
  instance: string;
}

/** A running receiver. */
export interface OtlpReceiver {
  /** Base URL (`--otel` value); traces are posted to `${url}/v1/traces`. */
  url: string;
  spans: ReceivedSpan[];
  /** The `content-type` of each export received. */
  contentTypes: string[];
  /** Requests that were not a valid OTLP export. */
  rejected: string[];
  close(): Promise<void>;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type OtlpAttribute = { key: string; value: OtlpValue };

function valueOf(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  return v.doubleValue;
}

function attributes(list: OtlpAttribute[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));
}

/** Starts a receiver on a free port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const rejected: string[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      try {
        if (req.method !== "POST" || req.url !== "/v1/traces") throw new Error(`${req.method} ${req.url}`);
        let body = Buffer.concat(chunks);
        if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
        const type = req.headers["content-type"] ?? "";
        contentTypes.push(type);
        if (type !== "application/x-protobuf" && type !== "application/json") throw new Error(`content-type ${type}`);
        const decoded: unknown =
          type === "application/json" ? JSON.parse(body.toString("utf8")) : decodeTraceRequest(body);
        const data = decoded as {
          resourceSpans: Array<{
            resource?: { attributes?: OtlpAttribute[] };
            scopeSpans: Array<{
              spans: Array<{
                name: string;
                traceId: string;
                spanId: string;
                parentSpanId?: string;
                attributes?: OtlpAttribute[];
              }>;
            }>;
          }>;
        };
        for (const rs of data.resourceSpans) {
          const resource = attributes(rs.resource?.attributes);
          for (const ss of rs.scopeSpans)
            for (const s of ss.spans)
              spans.push({
                name: s.name,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                attributes: attributes(s.attributes),
                service: String(resource["service.name"]),
                instance: String(resource["service.instance.id"]),
              });
        }
        // An empty ExportTraceServiceResponse: no partial success.
        res.writeHead(200, { "content-type": type });
        res.end(type === "application/json" ? "{}" : "");
      } catch (err) {
        rejected.push((err as Error).message);
        res.writeHead(400);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    spans,
    contentTypes,
    rejected,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
