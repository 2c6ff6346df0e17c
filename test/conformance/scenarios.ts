/**
 * Conformance scenarios: what a run of each conformance workflow must look like when it
 * ends, whichever worker ran it (the built-in one or an SDK over the worker protocol).
 */

/** One scenario: enqueue `workflow` with `payload`, optionally signal it once it waits, then compare. */
export interface Scenario {
  title: string;
  workflow: string;
  payload: (id: string) => unknown;
  /** Sent once the run waits on this event (the payload names it). */
  signal?: { event: (id: string) => string; payload: unknown };
  /** Once the run waits, `sluice approve` it as this user. */
  approveAs?: string;
  /** Once the run waits, POST the `resume` link the run checkpointed in this step (its value: the links). */
  resumeLinkOf?: string;
  expect: {
    status: string;
    attempt: number;
    /** [key, status] of every step, in order. */
    steps: Array<[string, string]>;
    /** Values of some steps. */
    values?: Record<string, unknown>;
    error?: RegExp;
  };
}

/** The scenarios every worker must pass. */
export const SCENARIOS: Scenario[] = [
  {
    title: "steps are checkpointed once and a sleep resumes, keeping earlier results",
    workflow: "conf-steps",
    payload: () => ({}),
    expect: {
      status: "succeeded",
      attempt: 1,
      steps: [
        ["a", "done"],
        ["nap", "done"],
        ["b", "done"],
      ],
      values: { a: 1, b: 2 },
    },
  },
  {
    title: "an error retries with the workflow's backoff; attempt 2 succeeds",
    workflow: "conf-retry",
    payload: () => ({}),
    expect: { status: "succeeded", attempt: 2, steps: [["try", "done"]], values: { try: 2 } },
  },
  {
    title: "waitFor with a timeout returns null; bail cancels the run",
    workflow: "conf-wait-timeout",
    payload: () => ({}),
    expect: { status: "cancelled", attempt: 1, steps: [["never", "done"]], values: { never: null } },
  },
  {
    title: "waitFor resumes with the signal's payload",
    workflow: "conf-signal",
    payload: (tag) => ({ event: `conf:${tag}` }),
    signal: { event: (tag) => `conf:${tag}`, payload: { ok: true } },
    expect: { status: "succeeded", attempt: 1, steps: [["conf:TAG", "done"]], values: { "conf:TAG": { ok: true } } },
  },
  {
    title: "child runs: each child's result or error resolves the parent's step",
    workflow: "conf-parent",
    payload: () => ({}),
    expect: {
      status: "succeeded",
      attempt: 1,
      steps: [
        ["double", "done"],
        ["zero", "error"],
        ["sum", "done"],
      ],
      values: { double: 42, sum: 43 },
    },
  },
  {
    title: "parallel children: started in one park, the parent resumes once all have finished",
    workflow: "conf-fanout",
    payload: () => ({}),
    expect: {
      status: "succeeded",
      attempt: 1,
      steps: [
        ["double", "done"],
        ["double#2", "done"],
        ["double#3", "error"],
        ["sum", "done"],
      ],
      values: { double: 2, "double#2": 4, sum: 6 },
    },
  },
  {
    title:
      "task children: functions of the same workflow run as child runs with their options; a failed task raises a stable TaskError; a timeout fails the task",
    workflow: "conf-tasks",
    payload: () => ({}),
    expect: {
      status: "succeeded",
      attempt: 1,
      steps: [
        ["extract", "done"],
        ["broken", "error"],
        ["slow", "error"],
        ["sum", "done"],
      ],
      values: {
        extract: 20,
        sum: { rows: 20, failed: { key: "broken", child: true, message: "bad row" }, late: "TASK_TIMEOUT" },
      },
    },
  },
  {
    title:
      "a fan-out of 550 task children over the SDK's park budget: written in parts, one suspend, every result back",
    workflow: "conf-big-fanout",
    payload: () => ({ n: 550 }),
    expect: {
      status: "succeeded",
      attempt: 1,
      steps: [
        ["echo", "done"],
        ...Array.from({ length: 549 }, (_, i): [string, string] => [`echo#${i + 2}`, "done"]),
        ["sum", "done"],
      ],
      values: { echo: 0, "echo#550": 549, sum: (550 * 549) / 2 },
    },
  },
  {
    title: "an approval parks the run until `sluice approve` decides it; the decision is the call's value",
    workflow: "conf-approval",
    payload: () => ({}),
    approveAs: "alice",
    expect: {
      status: "succeeded",
      attempt: 1,
      steps: [
        ["waitForApproval", "done"],
        ["after", "done"],
      ],
      values: { waitForApproval: { value: null, approver: "alice", approved: true }, after: "alice" },
    },
  },
  {
    title: "resume links of the next approval, made for an approver, approve it with a plain POST",
    workflow: "conf-links",
    payload: () => ({}),
    resumeLinkOf: "links",
    expect: {
      status: "succeeded",
      attempt: 1,
      steps: [
        ["links", "done"],
        ["waitForApproval", "done"],
        ["after", "done"],
      ],
      values: { waitForApproval: { value: null, approver: "bob", approved: true }, after: "bob" },
    },
  },
  {
    title: "fail ends the run failed, without retry",
    workflow: "conf-fail",
    payload: () => ({}),
    expect: { status: "failed", attempt: 1, steps: [], error: /bad order/ },
  },
];
