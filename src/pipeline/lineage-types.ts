/**
 * Types of the lineage graph: script, asset and native-trigger nodes, and the edges between
 * them. The graph is partition-agnostic: `{partition}` stays literal in asset nodes.
 */
import type { NativeTriggerKind, ScriptAnnotations } from "./annotation-types.js";
import type { AssetUri } from "./asset-uri.js";
import type { DetectedAsset } from "./detect-assets.js";

/** One parsed script, the input of the graph builder. */
export interface PipelineScript {
  /** The script path inside the project, e.g. `f/demo/transform.ts`. */
  readonly path: string;
  readonly annotations: ScriptAnnotations;
  /** What detection found (writes are the script's outputs; reads without `// on` are non-triggering lineage). */
  readonly assets: { readonly reads: readonly DetectedAsset[]; readonly writes: readonly DetectedAsset[] };
}

/** A pipeline member script. */
export interface ScriptNode {
  readonly type: "script";
  /** `script:<path>` */
  readonly id: string;
  readonly path: string;
  /** The file name without folder and extension (`f/demo/ingest.ts` → `ingest`). */
  readonly name: string;
  readonly annotations: ScriptAnnotations;
}

/** An asset (dataset) node. */
export interface AssetNode {
  readonly type: "asset";
  /** `asset:<canonical uri>` */
  readonly id: string;
  readonly asset: AssetUri;
}

/** A native trigger marker of one script (`// on schedule`), shown as a placeholder node. */
export interface TriggerNode {
  readonly type: "trigger";
  /** `trigger:<kind>:<script path>` */
  readonly id: string;
  readonly kind: NativeTriggerKind;
  readonly script: string;
}

/**
 * An edge. `writes`: script → asset. `triggers`: asset → script through `// on` (the cascade).
 * `reads`: asset → script, detected in code but not declared with `// on` (lineage only, never fires).
 * `fires`: native trigger → script.
 */
export interface LineageEdge {
  readonly kind: "writes" | "triggers" | "reads" | "fires";
  readonly from: string;
  readonly to: string;
  /** For `writes` into a `{partition}` node from a concrete written URI: that URI. */
  readonly written?: string;
  /** For `triggers`: the effective debounce window in seconds, if any. */
  readonly debounceSeconds?: number;
  /** For `triggers`: the `// on` line in the consumer. */
  readonly line?: number;
}

/** The lineage graph of one folder's pipeline. */
export interface LineageGraph {
  /** Member scripts, by path order. */
  readonly scripts: readonly ScriptNode[];
  /** Asset nodes, by URI order. */
  readonly assets: readonly AssetNode[];
  readonly triggers: readonly TriggerNode[];
  readonly edges: readonly LineageEdge[];
  /** Scripts given to the builder without a `// pipeline` marker (left out of the graph). */
  readonly excluded: readonly string[];
}
