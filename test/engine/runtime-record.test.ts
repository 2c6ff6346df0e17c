/**
 * Creating an engine changes nothing process-wide (issue 10: "constructors install global
 * hooks"): it joins the runtime record's started engines in `start()` and leaves it in `stop()`,
 * and patches `console` (run logs) only when it starts;
 * the producer engine the environment connector opens (never started) is installed by the connector.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { environmentConnector } from "../../src/engine/connect.js";
import { createEngine, type Engine } from "../../src/index.js";
import { currentRuntime } from "../../src/sdk/runtime.js";
import { tempDir } from "../helpers/tmp.js";

const dir = tempDir();
let n = 0;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function engine(): Engine {
  const e = createEngine({ database: join(dir, `r${n++}.db`), worker: false, scheduler: false, captureConsole: false });
  cleanups.push(() => e.stop());
  return e;
}

describe("the process runtime record", () => {
  it("is untouched by a constructor; start() installs the engine and stop() removes it", async () => {
    const before = currentRuntime();
    const e = engine();
    expect(currentRuntime()).toBe(before);
    await e.start();
    expect(currentRuntime()).toBe(e);
    const other = engine();
    expect(currentRuntime()).toBe(e); // created, not started: not the process default
    await e.stop();
    expect(currentRuntime()).toBe(before);
    expect(currentRuntime()).not.toBe(other);
  });

  it("leaves console alone until an engine that captures it starts", async () => {
    const log = console.log;
    const e = createEngine({ database: join(dir, `c${n++}.db`), worker: false, scheduler: false });
    cleanups.push(() => e.stop());
    expect(console.log).toBe(log); // created: nothing patched
    await e.start();
    expect(console.log).not.toBe(log); // started: output inside runs goes to their logs
  });

  it("gets the connector's producer engine installed explicitly (it is never started)", async () => {
    const before = currentRuntime();
    const producer = (await environmentConnector({ SLUICE_DATABASE: join(dir, `p${n++}.db`) })()) as Engine;
    cleanups.push(async () => {
      await producer.stop();
      await producer.store.close(); // opened by the connector, not owned by the engine
    });
    expect(producer).not.toBe(before);
    expect(producer.isStarted).toBe(false);
    expect(currentRuntime()).toBe(producer);
  });
});
