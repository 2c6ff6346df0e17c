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
