/**
 * `--otel <endpoint>` of `sluice dev`, `sluice worker` and `sluice server`: registers the
 * OpenTelemetry trace SDK with an OTLP/HTTP exporter, so the engine's spans
 * (`worker/tracing.ts`, API only) are exported. Without the flag the standard variables
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as is) and `OTEL_EXPORTER_OTLP_ENDPOINT` (+
 * `/v1/traces`) turn it on; `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` keep it off.
 * The encoding is `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` / `OTEL_EXPORTER_OTLP_PROTOCOL`
 * (`http/protobuf`, the default, or `http/json`; `otlp/protocol.ts`), posted by the SDK's HTTP
 * transport (`otlp/trace-exporter.ts`). The SDK packages are imported only when tracing is on, so
 * a cold start without it pays nothing.
 */
import { InvalidInputError } from "../core/errors.js";
import { SluiceContextManager } from "../worker/otel-context.js";
import { batchOptions } from "./otlp/batch-options.js";
import { type OtlpProtocol, otlpProtocol } from "./otlp/protocol.js";

/** The commander option of the three commands. */
export const OTEL_OPTION = [
  "--otel <endpoint>",
  "export traces over OTLP/HTTP to this collector (e.g. http://127.0.0.1:4318; default $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or $OTEL_EXPORTER_OTLP_ENDPOINT)",
] as const;

/** Where traces go, and why (the flag or which variable). */
export interface OtelTarget {
  /** The OTLP/HTTP traces URL (`…/v1/traces`). */
  url: string;
  /** The encoding (`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` / `OTEL_EXPORTER_OTLP_PROTOCOL`, default `http/protobuf`). */
  protocol: OtlpProtocol;
  from: "--otel" | "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" | "OTEL_EXPORTER_OTLP_ENDPOINT";
}

/**
 * The traces endpoint from `--otel` or the environment; null when tracing is off.
 * A base URL (no path, or `/`) gets `/v1/traces`, as the OTLP specification does for
 * `OTEL_EXPORTER_OTLP_ENDPOINT`.
 * @throws InvalidInputError (code INVALID_OTEL_ENDPOINT) for a value that is not an http(s) URL,
 *   (code INVALID_OTEL_PROTOCOL) for a protocol other than http/protobuf or http/json
 */
export function otelTarget(flag: unknown, env: Record<string, string | undefined>): OtelTarget | null {
  const target = otelEndpoint(flag, env);
  return target && { ...target, protocol: otlpProtocol(env) };
}

function otelEndpoint(flag: unknown, env: Record<string, string | undefined>): Omit<OtelTarget, "protocol"> | null {
  if (flag !== undefined) return { url: tracesUrl(flag, "--otel", true), from: "--otel" };
  if ((env.OTEL_SDK_DISABLED ?? "").toLowerCase() === "true") return null;
  if ((env.OTEL_TRACES_EXPORTER ?? "").toLowerCase() === "none") return null;
  const signal = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (signal)
    return {
      url: tracesUrl(signal, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", false),
      from: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    };
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (base) {
    const url = tracesUrl(base, "OTEL_EXPORTER_OTLP_ENDPOINT", false);
    return { url: `${url.replace(/\/+$/, "")}/v1/traces`, from: "OTEL_EXPORTER_OTLP_ENDPOINT" };
  }
  return null;
}

function tracesUrl(value: unknown, what: string, addPath: boolean): string {
  let url: URL | null = null;
  try {
    url = typeof value === "string" ? new URL(value) : null;
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
    throw new InvalidInputError(
      `${what} ${JSON.stringify(value)} is not an OTLP/HTTP endpoint: give an http(s) URL such as http://127.0.0.1:4318`,
      { code: "INVALID_OTEL_ENDPOINT" },
    );
  if (addPath && (url.pathname === "/" || url.pathname === "")) return `${url.origin}/v1/traces`;
  return url.href;
}

/** The line the commands print when tracing is on: where traces go and in which encoding. */
export function tracingLine(target: OtelTarget): string {
  return `traces: exporting to ${target.url} (OTLP/HTTP, ${target.protocol})\n`;
}

/** The registered SDK: `shutdown` exports what is buffered and stops. */
export interface Tracing {
  readonly target: OtelTarget;
  shutdown(): Promise<void>;
}

/**
 * Registers the trace SDK (a batch processor and an OTLP/HTTP exporter to `target`) as the
 * process's global tracer provider, with the W3C propagator and Sluice's context manager
 * (the OpenTelemetry context in Sluice's own AsyncLocalStorage). `service.name` is `OTEL_SERVICE_NAME`, else `service`.
 */
async function startTracing(
  target: OtelTarget,
  service: string,
  env: Record<string, string | undefined>,
): Promise<Tracing> {
  const [
    { NodeTracerProvider, BatchSpanProcessor },
    { otlpTraceExporter },
    { resourceFromAttributes },
    { PooledIdGenerator },
  ] = await Promise.all([
    import("@opentelemetry/sdk-trace-node"),
    import("./otlp/trace-exporter.js"),
    import("@opentelemetry/resources"),
    import("./otlp/id-generator.js"),
  ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      "service.name": env.OTEL_SERVICE_NAME || service,
      "service.instance.id": `${process.pid}`,
    }),
    spanProcessors: [
      // Larger batches than the SDK's unless OTEL_BSP_* say otherwise (`otlp/batch-options.ts`).
      new BatchSpanProcessor(otlpTraceExporter(target.url, target.protocol), batchOptions(env)),
    ],
    idGenerator: new PooledIdGenerator(),
  });
  // One AsyncLocalStorage for Sluice's scopes and the OpenTelemetry context (`worker/otel-context.ts`).
  provider.register({ contextManager: new SluiceContextManager() });
  return {
    target,
    shutdown: async () => {
      await provider.shutdown().catch((err: unknown) => {
        console.error(`sluice: could not export the last traces to ${target.url}: ${(err as Error).message}`);
      });
    },
  };
}

/**
 * Turns tracing on for a dev/worker/server command when `--otel` or the environment asks:
 * the endpoint is also put in `env` (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), so the worker
 * processes this one starts (lanes, external workers) export to the same place.
 * Returns null when tracing stays off.
 */
export async function tracingFor(
  flag: unknown,
  env: Record<string, string | undefined>,
  service: string,
): Promise<Tracing | null> {
  const target = otelTarget(flag, env);
  if (!target) return null;
  if (target.from === "--otel") env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = target.url;
  return startTracing(target, service, env);
}
