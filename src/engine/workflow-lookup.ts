/**
 * What a new run of a workflow name starts from, and why it cannot be enqueued: this process's
 * registered definition, else the one another process published, else (given a definition, as
 * `.enqueue()` does in a producer that registers nothing) the definition's own. A name the
 * registry refuses (`Registry.refuse`, e.g. `x.ts` and `x.py` under one name) is refused first.
 */
import { checkArguments, InvalidArgumentsError } from "../core/params.js";
import type { Store } from "../store/types.js";
import { UnknownWorkflowError } from "../sdk/errors.js";
import type { AnyWorkflow } from "../sdk/workflow.js";
import type { WorkflowDefaults } from "./enqueue-request.js";
import type { Registry } from "./registry.js";

/** Finds a workflow's run defaults across this process's registry and the store. */
export class WorkflowLookup {
  constructor(
    private readonly registry: Registry,
    private readonly store: Store,
  ) {}

  /**
   * The settings a new run of `workflow` starts from; a workflow registered here (the usual case)
   * is answered without a promise.
   * @throws the registry's refusal of the name, or UnknownWorkflowError (rejected) naming the known ones
   */
  defaults(workflow: string | AnyWorkflow): WorkflowDefaults | Promise<WorkflowDefaults> {
    const name = typeof workflow === "string" ? workflow : workflow.name;
    const refused = this.registry.refusal(name);
    if (refused) throw refused;
    return this.registry.get(name)?.def ?? this.elsewhere(workflow);
  }

  /**
   * Why a run of `name` with `payload` could not be enqueued now (a `taskScript`/`taskFlow` child
   * is checked as an enqueue is): null when this process registers it or a process published it
   * (and did not remove it) and the payload fits its parameters, else the error {@link defaults}
   * would throw, or the `InvalidArgumentsError` of `checkArguments`. A failed store read answers
   * null. Asked while this process loads modules, it answers once they are loaded.
   */
  refusal(name: string, payload?: unknown): Error | null | Promise<Error | null> {
    const refused = this.registry.refusal(name);
    if (refused) return refused;
    const local = this.registry.get(name)?.def;
    if (local) return argumentsRefusal(local, payload);
    return (async () => {
      // A module this process is loading (starting, or a file changed) may be the one: wait for it.
      await this.registry.loaded();
      const loaded = this.registry.get(name)?.def;
      if (loaded) return argumentsRefusal(loaded, payload);
      return this.elsewhere(name).then(
        (wf) => argumentsRefusal(wf, payload),
        (err: unknown) => (err instanceof UnknownWorkflowError ? err : null),
      );
    })();
  }

  /** The defaults of a workflow this process does not register. */
  private async elsewhere(workflow: string | AnyWorkflow): Promise<WorkflowDefaults> {
    const name = typeof workflow === "string" ? workflow : workflow.name;
    const local = this.registry.get(name)?.def;
    if (local) return local;
    const published = await this.store.getWorkflow(name);
    if (published && !published.removedAt) return published;
    if (typeof workflow !== "string") return workflow;
    const known = new Set([...this.registry.names(), ...(await this.store.listWorkflows()).map((w) => w.name)]);
    throw new UnknownWorkflowError(workflow, [...known].sort(), published ? { source: published.source } : undefined);
  }
}

/** The error of `checkArguments` for `payload` against the workflow's parameters, or null when it fits (or they are unknown). */
function argumentsRefusal(wf: WorkflowDefaults, payload: unknown): InvalidArgumentsError | null {
  if (!wf.params) return null;
  try {
    checkArguments(wf.name, wf.params, payload);
    return null;
  } catch (err) {
    if (err instanceof InvalidArgumentsError) return err;
    throw err;
  }
}
