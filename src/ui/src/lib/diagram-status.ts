/**
 * Live status of each diagram node on a run page: a primitive node's checkpoint key is
 * the step's key, so its status is the step's (a task's is its child run's). Nodes
 * that stand for many calls (inside loops and fan-outs) sum up every `key#n` step, and a
 * key computed by a template literal (`approval:order-${payload.orderId}`) matches any text
 * in place of each `${…}`. Pure.
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

/** The `${…}` parts of a template key (balanced braces, so `${f({ a })}` is one part). */
function splitTemplate(key: string): string[] | null {
  const parts: string[] = [];
  let literal = "";
  let i = 0;
  while (i < key.length) {
    if (key.startsWith("${", i)) {
      let depth = 1;
      let j = i + 2;
      for (; j < key.length && depth > 0; j++) depth += key[j] === "{" ? 1 : key[j] === "}" ? -1 : 0;
      if (depth > 0) return null;
      parts.push(literal);
      literal = "";
      i = j;
    } else literal += key[i++];
  }
  parts.push(literal);
  return parts.length > 1 ? parts : null;
}

/** Whether a runtime step key is one call of an approximate node's key (any `#n`, any text for each `${…}`). */
function approximateMatcher(nodeKey: string): (stepKey: string) => boolean {
  const base = baseKey(nodeKey);
  const parts = splitTemplate(base);
  if (!parts) return (stepKey) => baseKey(stepKey) === base;
  const escape = (text: string) => text.replace(/[.*+?^$()|[\]\\{}]/g, "\\$&");
  const pattern = new RegExp(`^${parts.map(escape).join("[\\s\\S]*?")}(?:#\\d+)?$`);
  return (stepKey) => pattern.test(stepKey);
}

const RANK: DisplayStatus[] = ["failed", "running", "waiting", "sleeping", "pending", "cancelled", "succeeded"];

/** The state of every node of `diagram` for the run in `detail` at `now` (nodes without a state are not reached). */
export function nodeStates(diagram: WorkflowDiagram, detail: ApiRunDetail, now: number): Map<string, NodeState> {
  const children = new Map(detail.children.map((c) => [c.id, c]));
  const byKey = new Map(detail.steps.map((s) => [s.key, s]));
  const states = new Map<string, NodeState>();
  for (const node of diagram.nodes) {
    if (!node.key) continue;
    const approximate = node.repeated || node.approximateKey ? approximateMatcher(node.key) : null;
    const matches = approximate
      ? detail.steps.filter((s) => approximate(s.key))
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
