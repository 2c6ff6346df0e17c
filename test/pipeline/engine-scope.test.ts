/**
 * Two engines in one process, each with its own project and pipeline host: the SDK's asset
 * helpers called by one engine's code write to that engine's storage (not the host attached
 * last, as a process-wide default did), and an HTTP app sees only the pipeline host it was
 * given.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.js";
import { startPipelines, type PipelineProject } from "./harness.js";

/** A pipeline member: its write is recorded on its run. */
const MEMBER = `// pipeline
import * as wmill from 'windmill-client';

export async function main(who: string) {
	await wmill.writeS3File({ s3: 'demo/who.txt' }, who);
}
`;
/** A plain script (no \`// pipeline\`): its write is stored, unrecorded. */
const PLAIN = `import * as wmill from 'windmill-client';

export async function main(who: string) {
	await wmill.writeS3File({ s3: 'plain/who.txt' }, who);
}
`;

const files = (folder: string) => ({ [`f/${folder}/put.ts`]: MEMBER, "f/plain/put.ts": PLAIN });
const object = (p: PipelineProject, key: string) => join(p.root, ".sluice", "s3", key);

describe("two engines in one process", () => {
  let a: PipelineProject;
  let b: PipelineProject;
  beforeAll(async () => {
    a = await startPipelines(files("alpha"));
    // Started last: a process-wide "last attached wins" default would send a's writes here.
    b = await startPipelines(files("beta"));
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("sends each engine's SDK asset calls to its own storage", async () => {
    const [ha, hb] = await Promise.all([
      a.engine.enqueueRun("f/plain/put", { who: "a" }),
      b.engine.enqueueRun("f/plain/put", { who: "b" }),
    ]);
    await Promise.all([ha.result({ timeoutMs: 15_000 }), hb.result({ timeoutMs: 15_000 })]);
    expect(readFileSync(object(a, "plain/who.txt"), "utf8")).toBe("a");
    expect(readFileSync(object(b, "plain/who.txt"), "utf8")).toBe("b");
  });

  it("records a pipeline run's write on that engine's run only", async () => {
    const h = await a.engine.enqueueRun("f/alpha/put", { who: "a" });
    await h.result({ timeoutMs: 15_000 });
    expect(readFileSync(object(a, "demo/who.txt"), "utf8")).toBe("a");
    expect(existsSync(object(b, "demo/who.txt"))).toBe(false);
    const steps = await a.store.getSteps(h.id);
    expect(steps.filter((s) => s.kind === "asset").map((s) => s.target)).toEqual(["s3://demo/who.txt"]);
    expect(await b.store.getRun(h.id)).toBeNull();
  });

  it("serves pipelines only from the host the app was given", async () => {
    const bare = createApp({ engine: a.engine, auth: { mode: "off" }, uiDir: null });
    const none = await bare.request("/api/pipelines");
    expect(none.status).toBe(404);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe("PIPELINES_UNAVAILABLE");

    const app = createApp({ engine: a.engine, pipelines: a.pipelines, auth: { mode: "off" }, uiDir: null });
    const res = await app.request("/api/pipelines");
    expect(res.status).toBe(200);
    const body = JSON.stringify(await res.json());
    expect(body).toContain("f/alpha");
    expect(body).not.toContain("f/beta");
  });
});
