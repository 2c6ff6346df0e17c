/**
 * Which OTLP/HTTP encoding `--otel` exports in, from the standard variables: the OTLP exporter
 * specification's `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`, else
 * `http/protobuf` (the specification's default). Pure.
 */
import { InvalidInputError } from "../../core/errors.js";

/** The encodings Sluice exports in (gRPC is not supported: it needs a gRPC client). */
export type OtlpProtocol = "http/protobuf" | "http/json";

const PROTOCOLS: readonly OtlpProtocol[] = ["http/protobuf", "http/json"];

/**
 * The protocol the environment asks for.
 * @throws InvalidInputError (code INVALID_OTEL_PROTOCOL) for another value (`grpc` included)
 */
export function otlpProtocol(env: Record<string, string | undefined>): OtlpProtocol {
  for (const name of ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"]) {
    const value = env[name]?.trim();
    if (!value) continue;
    const protocol = PROTOCOLS.find((p) => p === value.toLowerCase());
    if (protocol) return protocol;
    throw new InvalidInputError(
      `${name}=${JSON.stringify(value)} is not supported: Sluice exports traces over OTLP/HTTP, set it to http/protobuf (the default) or http/json`,
      { code: "INVALID_OTEL_PROTOCOL" },
    );
  }
  return "http/protobuf";
}
