import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidArgumentsError, type ParamSpec } from "../core/params.js";
import { UnknownWorkflowError } from "../sdk/errors.js";
import { defineWorkflow } from "../sdk/workflow.js";
import { openSqliteStore, type SqliteStore } from "../store/sqlite/store.js";
import { tempDir } from "../../test/helpers/tmp.js";
import { Registry } from "./registry.js";
import { WorkflowLookup } from "./workflow-lookup.js";

const typed: ParamSpec = { names: ["n"], required: ["n"], types: { n: { hint: "int", json: ["integer"] } } };

describe("WorkflowLookup.refusal: a child's target checked as an enqueue of it", () => {
  let store: SqliteStore;
  let lookup: WorkflowLookup;
  const registry = new Registry();
  beforeAll(async () => {
    store = openSqliteStore({ path: join(tempDir("sluice-lookup-"), "sluice.db") });
    registry.add({ def: defineWorkflow("f/here", { params: typed, handler: () => 1 }), version: null, source: null });
    registry.add({ def: defineWorkflow("f/any", { handler: () => 1 }), version: null, source: null });
    await store.registerWorkflows([
      {
        name: "f/there",
        version: "v1",
        queue: "default",
        maxAttempts: 3,
        backoff: { base: 1000, max: 1000 },
        source: "f/there.py",
        schedule: null,
        params: typed,
      },
    ]);
    lookup = new WorkflowLookup(registry, store);
  });
  afterAll(() => store.close());

  it("answers null for a payload that fits, at once for a workflow registered here", async () => {
    expect(lookup.refusal("f/here", { n: 1 })).toBeNull();
    expect(lookup.refusal("f/any", { whatever: [1] })).toBeNull();
    expect(await lookup.refusal("f/there", { n: 2 })).toBeNull();
  });

  it("answers the InvalidArgumentsError of checkArguments for one that does not, here or published", async () => {
    const here = lookup.refusal("f/here", { n: "two" });
    expect(here).toBeInstanceOf(InvalidArgumentsError);
    expect((here as Error).message).toBe(
      'parameter "n" of f/here is int, so it takes a whole number: got "two" (a string)',
    );
    expect(lookup.refusal("f/here", {})).toMatchObject({ code: "INVALID_ARGUMENTS", message: /missing parameter "n"/ });
    expect(await lookup.refusal("f/there", { n: 1.5 })).toMatchObject({
      code: "INVALID_ARGUMENTS",
      message: 'parameter "n" of f/there is int, so it takes a whole number: got 1.5 (a number)',
    });
  });

  it("an unknown name is still UnknownWorkflowError, whatever the payload", async () => {
    expect(await lookup.refusal("f/nowhere", { n: "two" })).toBeInstanceOf(UnknownWorkflowError);
  });
});
