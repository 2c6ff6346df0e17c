import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { discoverWorkflowFiles, isRunnableFile } from "./discover.js";

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

function folder(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "sluice-discover-"));
  roots.push(root);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

const WORKFLOW = 'import { defineWorkflow } from "sluice"; export default defineWorkflow("w", { handler: () => 1 });';
const files: Record<string, string> = {
  "workflows/a.ts": "export const x = 1;",
  "src/workflows/b.ts": "export const y = 1;",
  "f/data/etl.ts": "export const main = workflow(async () => 1);",
  "f/data/script.ts": "export async function main(x: number) { return x; }",
  "u/alice/mine.ts": "export function main() { return 1; }",
  "hello.ts": WORKFLOW,
  "f/data/helper.ts": "export const helper = () => 1;",
  "src/app.ts": WORKFLOW,
  "bench/worker.ts": WORKFLOW,
  "lib/util.ts": "export const helper = () => 1;",
  "f/data/etl.test.ts": "export const main = 1;",
  "dist/old.js": "export function main() {}",
  ".hidden/x.ts": "export function main() {}",
  "node_modules/pkg/index.js": "export function main() {}",
};

describe("discovering runnable modules", () => {
  const root = folder(files);
  it("finds workflows/ files, and f/, u/ and top-level modules that define a workflow or export main; nothing elsewhere", () => {
    expect(discoverWorkflowFiles(root)).toEqual([
      "f/data/etl.ts",
      "f/data/script.ts",
      "hello.ts",
      "src/workflows/b.ts",
      "u/alice/mine.ts",
      "workflows/a.ts",
    ]);
  });
  it("answers for one file the same way, without walking the project", () => {
    for (const rel of Object.keys(files))
      expect(isRunnableFile(root, rel), rel).toBe(discoverWorkflowFiles(root).includes(rel));
  });
  it("loads nothing from a folder that is not a Sluice project, even modules that define workflows", () => {
    const plain = folder({ "hello.ts": WORKFLOW, "bench/worker.ts": WORKFLOW, "src/app.ts": WORKFLOW });
    expect(discoverWorkflowFiles(plain)).toEqual([]);
    expect(isRunnableFile(plain, "hello.ts")).toBe(false);
    writeFileSync(join(plain, "sluice.json"), "{}");
    expect(discoverWorkflowFiles(plain)).toEqual(["hello.ts"]);
  });
});
