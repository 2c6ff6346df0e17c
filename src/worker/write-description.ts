/** How the operator's warnings name a claim's write when the database refuses it. */
import type { Command } from "../store/types.js";

/** What a claim's write does, for the operator's warning when the database refuses it (built only then). */
export function describeWrite(command: Command): string {
  switch (command.verb) {
    case "saveSteps":
      return `save ${command.steps.map((s) => `"${s.key}"`).join(", ")}`;
    case "suspend":
      return "park the run";
    case "complete":
      return `record its outcome (${command.outcome.status})`;
    default:
      return command.verb;
  }
}
