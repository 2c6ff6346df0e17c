/**
 * Shared types of asset detection. Detectors report raw findings (URI text as found, an
 * offset); `detect-assets.ts` validates, merges and applies overrides.
 */

/** What a piece of code does with an asset. `unknown` when it could not be inferred. */
export type DetectedAccess = "read" | "write" | "readwrite" | "unknown";

/** One raw finding of a detector. */
export interface RawDetection {
  /** The asset URI as found (not yet validated), e.g. `s3://lake/{partition}/x.parquet`. */
  readonly uri: string;
  readonly access: Exclude<DetectedAccess, "readwrite">;
  /** Offset in the scanned text (for the line number). */
  readonly offset: number;
  /** What recognised it, e.g. `writeS3File`, `COPY … TO`, `read_parquet`. */
  readonly via: string;
}

/** A place where an asset is used but its path is only known at run time. */
interface DynamicReference {
  readonly offset: number;
  readonly via: string;
}

/** What one detector found. */
export interface DetectorOutput {
  readonly detections: RawDetection[];
  readonly dynamic: DynamicReference[];
}

/** An empty detector output to fill. */
export function emptyOutput(): DetectorOutput {
  return { detections: [], dynamic: [] };
}

/** One asset use a parser outside this layer found, placed by line. */
export interface CodeFinding {
  /** The asset URI, e.g. `ducklake://shop/orders`. */
  readonly uri: string;
  readonly access: "read" | "write";
  /** 1-based line of the call. */
  readonly line: number;
  /** What recognised it, e.g. `ducklake().upsertPartition`. */
  readonly via: string;
}

/**
 * What a parser of the script's own language (TypeScript's, Python's `ast`) found: helper calls
 * on `ducklake(...)` clients. The runtime runs those parsers (`runtime/lake-calls.ts`) and hands
 * the findings to {@link detectAssets} through `analyzeScript`.
 */
export interface CodeFindings {
  readonly detections: readonly CodeFinding[];
  /** Helper calls on a known client whose table is only known at run time. */
  readonly dynamic: readonly { readonly line: number; readonly via: string }[];
  /** Base URIs (`ducklake://shop`) of the clients these calls were made on: their tables are known, not the lake as a whole. */
  readonly clients: readonly string[];
  /** Why some calls could not be looked at (no python3, a syntax error), with a line (0: the script). */
  readonly warnings: readonly { readonly line: number; readonly code: string; readonly message: string }[];
}
