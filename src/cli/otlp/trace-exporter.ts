/**
 * The span exporter of `--otel`: the SDK's OTLP/HTTP transport (`@opentelemetry/otlp-exporter-base`:
 * its retries, timeout, concurrency limit, compression, `OTEL_EXPORTER_OTLP_*` headers and
 * certificates), built as `@opentelemetry/exporter-trace-otlp-http` builds its exporter, with the
 * encoding `otlpProtocol` chose: `http/protobuf` (the OTLP default) through Sluice's one-pass
 * serializer (`trace-serializer.ts`), or `http/json` through the SDK's JSON serializer.
 * Imported only when tracing is on (`cli/otel.ts`).
 */
import type { SpanExporter } from "@opentelemetry/sdk-trace-node";
import { OTLPExporterBase } from "@opentelemetry/otlp-exporter-base";
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from "@opentelemetry/otlp-exporter-base/node-http";
import {
  JsonTraceSerializer,
  ProtobufTraceSerializer,
  TraceExporterMetricsHelper,
} from "@opentelemetry/otlp-transformer";
import type { OtlpProtocol } from "./protocol.js";
import { OtlpTraceWriter, type TraceSerializer } from "./trace-serializer.js";

/** The exporter's component type in the SDK's self-observability metrics (as the SDK's own exporter names it). */
const COMPONENT_TYPE = "otlp_http_span_exporter";

/** Sluice's protobuf serializer in the SDK's `ISerializer` shape (responses read by the SDK's reader). */
export function protobufTraceSerializer(): TraceSerializer {
  const writer = new OtlpTraceWriter();
  return {
    serializeRequest: (spans) => writer.encode(spans),
    deserializeResponse: (data) => ProtobufTraceSerializer.deserializeResponse(data),
  };
}

/** An OTLP/HTTP span exporter posting to `url` (the full traces URL) in `protocol`'s encoding. */
export function otlpTraceExporter(url: string, protocol: OtlpProtocol): SpanExporter {
  const json = protocol === "http/json";
  const options = convertLegacyHttpOptions({ url }, "TRACES", "v1/traces", {
    "Content-Type": json ? "application/json" : "application/x-protobuf",
  });
  const serializer = json ? JsonTraceSerializer : protobufTraceSerializer();
  return new OTLPExporterBase(
    createOtlpHttpExportDelegate(options, serializer, COMPONENT_TYPE, TraceExporterMetricsHelper, undefined),
  );
}
