import { describe, expect, it } from "vitest";
import { checkStorageModel, StorageModelError } from "./storage-model.js";

const wf = (name: string, local = false) => ({ name, local });

describe("checkStorageModel (seed 002's multi-server table)", () => {
  it("accepts one server with anything, and any project on a shared database", () => {
    expect(() =>
      checkStorageModel({ servers: 1, sharedStore: false, workflows: [wf("a"), wf("b", true)] }),
    ).not.toThrow();
    expect(() =>
      checkStorageModel({ servers: 3, sharedStore: true, workflows: [wf("a"), wf("b", true)] }),
    ).not.toThrow();
  });

  it("accepts several servers without a shared database when every workflow is local", () => {
    expect(() =>
      checkStorageModel({ servers: 3, sharedStore: false, workflows: [wf("clean", true), wf("warm", true)] }),
    ).not.toThrow();
    // Sluice's own workflows do not count as the user's global ones.
    expect(() =>
      checkStorageModel({ servers: 3, sharedStore: false, workflows: [wf("clean", true), wf("sluice:pipeline-plan")] }),
    ).not.toThrow();
  });

  it("refuses global workflows on several servers without a shared database", () => {
    expect(() => checkStorageModel({ servers: 2, sharedStore: false, workflows: [wf("a"), wf("b")] })).toThrow(
      /2-server setup has global workflows \(a, b\) but no shared workflow state: set SLUICE_DATABASE_URL .* or set local: true on every workflow/,
    );
  });

  it("refuses mixed local and global workflows on several servers without a shared database", () => {
    const err = (() => {
      try {
        checkStorageModel({ servers: 2, sharedStore: false, workflows: [wf("a"), wf("clean", true)] });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(StorageModelError);
    expect(err).toMatchObject({ code: "STORAGE_MODEL" });
    expect((err as Error).message).toMatch(
      /mixes local workflows \(clean\) with global ones \(a\), so it needs shared workflow state: set SLUICE_DATABASE_URL/,
    );
  });

  it("refuses worker commands (Go workers) on several servers without a shared database: they have no local opt-out", () => {
    const cmd = ["[go] go run ./cmd/worker"];
    expect(() => checkStorageModel({ servers: 2, sharedStore: false, workflows: [], workerCommands: cmd })).toThrow(
      /2-server setup starts worker commands \(\[go\] go run \.\/cmd\/worker\) whose workflows have no local opt-out, so it needs shared workflow state: set SLUICE_DATABASE_URL/,
    );
    // Even beside workflows that are all local.
    expect(() =>
      checkStorageModel({ servers: 2, sharedStore: false, workflows: [wf("clean", true)], workerCommands: cmd }),
    ).toThrow(StorageModelError);
    expect(() =>
      checkStorageModel({ servers: 2, sharedStore: true, workflows: [], workerCommands: cmd }),
    ).not.toThrow();
    expect(() =>
      checkStorageModel({ servers: 1, sharedStore: false, workflows: [], workerCommands: cmd }),
    ).not.toThrow();
  });
});
