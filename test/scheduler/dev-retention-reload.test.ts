/**
 * `retention` in sluice.json changed while a real `sluice dev` watches the project: applied at once, as the
 * file's trigger rows are (said on stdout, the finished runs it no longer keeps deleted at the next tick);
 * a bad value is refused with the reason and the retention in force stays.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { Store } from "../../src/store/types.js";
import { spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";
import { delay, eventually } from "../helpers/tmp.js";

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

describe("sluice dev reloads sluice.json's retention", () => {
  it("a retention changed from forever to 1s deletes the older finished runs without a restart", async () => {
    const root = makeProject({
      "sluice.json": JSON.stringify({ retention: "forever" }),
      "workflows/hello.ts": `import { defineWorkflow } from "sluice";\nexport const hello = defineWorkflow("hello", { handler: async () => "hi" });\n`,
    });
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    stores.push(store);
    const dev = spawnSluice(["dev", ".", "--port", "0"], root);
    await dev.waitFor(/UI: http/, 30_000);
    expect(await spawnSluice(["enqueue", "hello", "{}", "--id", "old"], root).exited).toBe(0);
    await eventually(async () => (await store.getRun("old"))?.status === "succeeded", 15_000);

    // A bad value: refused, saying why; forever stays (the run is kept).
    writeFileSync(join(root, "sluice.json"), JSON.stringify({ retention: "soon" }));
    await dev.waitFor(/error: sluice\.json not reloaded, .*invalid retention "soon"/, 15_000);
    await delay(2_500);
    expect(await store.getRun("old")).not.toBeNull();

    writeFileSync(join(root, "sluice.json"), JSON.stringify({ retention: "1s" }));
    await dev.waitFor(/reloaded sluice\.json: retention 1s \(was forever\)/, 15_000);
    await eventually(async () => (await store.getRun("old")) === null, 15_000);
    expect(dev.stderr()).not.toMatch(/scheduler/);

    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 90_000);
});
