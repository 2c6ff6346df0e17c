/**
 * Live status of each diagram node on a run page: a primitive node's checkpoint key is
 * the step's key, so its status is the step's (a task's is its child run's). Nodes
 * that stand for many calls (inside loops and fan-outs) sum up every `key#n` step. Pure.
 */
import type { ApiRunDetail } from "../../../http/api-types";
import type { WorkflowDiagram } from "../../../diagram/model";
import type { DisplayStatus } from "./status";
import { stepStatus } from "./timeline";

/** A node's live state. */
export interface NodeState {
  status: DisplayStatus;
  /** Calls counted (more than one for repeated nodes). */
  count: number;
}

const baseKey = (key: string) => key.replace(/#\d+$/, "");

const RANK: DisplayStatus[] = ["failed", "running", "waiting", "sleeping", "pending", "cancelled", "succeeded"];

/** The state of every node of `diagram` for the run in `detail` at `now` (nodes without a state are not reached). */
export function nodeStates(diagram: WorkflowDiagram, detail: ApiRunDetail, now: number): Map<string, NodeState> {
  const children = new Map(detail.children.map((c) => [c.id, c]));
  const byKey = new Map(detail.steps.map((s) => [s.key, s]));
  const states = new Map<string, NodeState>();
  for (const node of diagram.nodes) {
    if (!node.key) continue;
    const matches =
      node.repeated || node.approximateKey
        ? detail.steps.filter((s) => baseKey(s.key) === baseKey(node.key!))
        : byKey.has(node.key)
          ? [byKey.get(node.key)!]
          : [];
    if (matches.length === 0) continue;
    const statuses = matches.map((s) =>
      stepStatus(s, s.childId ? children.get(s.childId) : undefined, detail.run.status, now),
    );
    const status = RANK.find((r) => statuses.includes(r)) ?? statuses[0]!;
    states.set(node.id, { status, count: matches.length });
  }
  const started = detail.run.startedAt !== null;
  if (started) states.set("start", { status: "succeeded", count: 1 });
  if (detail.run.finishedAt) states.set("end", { status: detail.run.status, count: 1 });
  return states;
}
