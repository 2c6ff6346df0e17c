/**
 * The typed result of parsing a script's pipeline annotations. Every field that came from
 * a line carries that line's 1-based number.
 */
import type { AssetUri } from "./asset-uri.js";
import type { PipelineDuration } from "./duration.js";
import type { PartitionSpec } from "./partition-spec.js";

/** The native-trigger keywords accepted by `// on <kind>`. */
export const NATIVE_TRIGGER_KINDS = [
  "schedule",
  "webhook",
  "email",
  "kafka",
  "nats",
  "mqtt",
  "postgres",
  "sqs",
  "gcp",
  "data_upload",
] as const;

/** A native trigger kind. */
export type NativeTriggerKind = (typeof NATIVE_TRIGGER_KINDS)[number];

/** True when `word` is a native trigger keyword. */
export function isNativeTriggerKind(word: string): word is NativeTriggerKind {
  return (NATIVE_TRIGGER_KINDS as readonly string[]).includes(word);
}

/** `// on <asset-uri> [debounce=<duration>]`: an asset input that triggers the script. */
export interface AssetInput {
  /** The normalised asset. `asset.partitioned` makes this a partition-bearing input. */
  readonly asset: AssetUri;
  /** The per-input `debounce=` override, when valid. */
  readonly debounce?: PipelineDuration;
  readonly line: number;
}

/** `// on <kind>`: the script opts into firing from a native trigger that targets it. */
export interface NativeTriggerMarker {
  readonly kind: NativeTriggerKind;
  readonly line: number;
}

/** How several inputs combine: any one fires (OR), or all partition-bearing ones per partition (AND). */
export type TriggerMode = "any" | "all";

/** A duration-valued annotation (`// debounce`, `// freshness`). */
export interface DurationAnnotation {
  readonly duration: PipelineDuration;
  readonly line: number;
}

/** `// partitioned <kind> [opts]`, validated, defaults applied. */
export interface PartitionedAnnotation {
  readonly spec: PartitionSpec;
  readonly line: number;
}

/** `// retry <count> [<delay>]` (cascade-dispatched runs only). */
export interface RetryAnnotation {
  readonly count: number;
  readonly delay?: PipelineDuration;
  readonly line: number;
}

/** `// tag <name>`: the worker tag, verbatim. */
export interface TagAnnotation {
  readonly name: string;
  readonly line: number;
}

/** How a managed materialization reconciles a slice. */
type MaterializeStrategy = "replace" | "merge" | "append";

/** `// materialize [manual] ducklake://<name>/<table> [append] [key=<col>]`. */
export interface MaterializeAnnotation {
  /** `managed` (Sluice generates the write) or `manual` (track-only). */
  readonly mode: "managed" | "manual";
  /** The DuckLake table, `ducklake://<name>/<table>`. */
  readonly target: AssetUri;
  /** `replace` (default), `merge` (`key=`) or `append` (wins over `key=`). Always `replace` for manual. */
  readonly strategy: MaterializeStrategy;
  /** The merge key column, present when `strategy` is `merge`. */
  readonly key?: string;
  readonly line: number;
}

/** A column of an asset, `<asset-uri>.<col>`. */
export interface AssetColumn {
  /** Canonical asset URI. */
  readonly asset: string;
  readonly column: string;
}

/** `// data_test …`: a test of the freshly materialized slice. */
export type DataTest =
  | { readonly kind: "unique" | "not_null"; readonly column: string; readonly line: number }
  | {
      readonly kind: "accepted_values";
      readonly column: string;
      readonly values: readonly string[];
      readonly line: number;
    }
  | { readonly kind: "relationships"; readonly column: string; readonly references: AssetColumn; readonly line: number }
  | { readonly kind: "script"; readonly path: string; readonly line: number };

/** `// column <out> <- <asset>.<col>, …` lines for one output column, merged. */
export interface ColumnLineage {
  readonly output: string;
  readonly sources: readonly AssetColumn[];
  readonly lines: readonly number[];
}

/** The access an asset override declares (`ignore` drops a false detection). */
export type AssetAccess = "read" | "write" | "readwrite" | "ignore";

/** `// asset <read|write|readwrite|ignore> <uri>`: Sluice's manual read/write override. */
export interface AssetOverride {
  readonly asset: AssetUri;
  readonly access: AssetAccess;
  readonly line: number;
}

/** Everything the annotations of one script declare. Absent fields were not declared (or were ignored). */
export interface ScriptAnnotations {
  /** `// pipeline` present: the script is a member of its folder's pipeline. */
  readonly pipeline: boolean;
  /** Asset inputs, de-duplicated, in line order. */
  readonly inputs: readonly AssetInput[];
  /** Native-trigger markers, de-duplicated, in line order. */
  readonly nativeTriggers: readonly NativeTriggerMarker[];
  /** `// trigger any|all`; `any` by default. */
  readonly trigger: TriggerMode;
  /** The line of the `// trigger` annotation that set {@link ScriptAnnotations.trigger}, if any. */
  readonly triggerLine?: number;
  /** Script-level default debounce window of asset inputs. */
  readonly debounce?: DurationAnnotation;
  /** Freshness SLO (parsed metadata only; no watchdog yet). */
  readonly freshness?: DurationAnnotation;
  readonly partitioned?: PartitionedAnnotation;
  readonly retry?: RetryAnnotation;
  readonly tag?: TagAnnotation;
  readonly materialize?: MaterializeAnnotation;
  readonly dataTests: readonly DataTest[];
  readonly columns: readonly ColumnLineage[];
  readonly assetOverrides: readonly AssetOverride[];
}

/**
 * The debounce window of one asset input: its own `debounce=`, else the script-level
 * `// debounce`, else none (every write fans out).
 */
export function effectiveDebounce(annotations: ScriptAnnotations, input: AssetInput): PipelineDuration | undefined {
  return input.debounce ?? annotations.debounce?.duration;
}

/** The asset inputs whose path contains `{partition}` (the ones a `// trigger all` barrier tracks). */
export function partitionBearingInputs(annotations: ScriptAnnotations): AssetInput[] {
  return annotations.inputs.filter((i) => i.asset.partitioned);
}
