/**
 * "Started by" in headless Chromium names the person at the machine whichever way they start
 * the same thing: a pipeline plan from the UI ("Run up to here") and from the CLI (`sluice
 * pipeline run --detach`), a step from the UI ("Run step"), and a run `sluice dev` enqueues from
 * sluice.json. Real processes: `sluice dev` and the CLI share the project's SQLite file.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { type SluiceProcess, spawnSluice } from "../helpers/processes.js";
import { type Browser, launch, skipReason } from "./browser.js";

const skip = skipReason();

const FILES = {
  "sluice.json": JSON.stringify({ dev: { enqueue: [{ workflow: "hello", payload: { name: "dev" } }] } }),
  "workflows/hello.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow<{ name: string }>("hello", { handler: async (p) => \`hello \${p.name}\` });`,
  "f/p/first.ts": `// pipeline
import * as wmill from 'windmill-client';
export async function main() {
	await wmill.writeS3File({ s3: 'p/a.json' }, '[]');
}
`,
  "f/p/second.ts": `// pipeline
// on s3://p/a.json
export async function main() {}
`,
};

/** The same person for both processes: `sluice dev`'s UI without auth and the CLI name the local user. */
const ENV = { USER: "ana", LOGNAME: undefined };

describe.skipIf(skip !== null)(`"Started by", UI and CLI alike${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let root: string;
  let dev: SluiceProcess;
  let url: string;
  let browser: Browser;

  beforeAll(async () => {
    root = makeProject(FILES);
    dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root, ENV, { shared: true });
    await dev.waitFor(/UI: (http:\/\/127\.0\.0\.1:\d+)/, 40_000);
    url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
    browser = await launch();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    dev?.proc.kill("SIGTERM");
    await dev?.exited;
  });

  const startedBy = async (id: string) => {
    const { page } = browser;
    await page.goto(`${url}/runs?tasks=1`);
    const row = page.locator(`tr[data-run="${id}"]`);
    await row.waitFor({ timeout: 15_000 });
    return row.locator("td").nth(3).innerText();
  };

  it("a plan started from the UI and one from the CLI, a step from the UI, a sluice.json run: all 'ana'", async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 1366, height: 768 });
    await page.goto(`${url}/pipelines/f/p`);
    const graph = page.getByRole("region", { name: "Pipeline graph" });
    await graph.locator('[data-node="script:f/p/second.ts"]').click();
    await page.getByRole("button", { name: "Run up to here" }).click();
    const runOf = async () =>
      decodeURIComponent((await page.getByRole("status").locator("a").getAttribute("href"))!.replace("/runs/", ""));
    await page.getByRole("status").getByText("Started the plan").waitFor();
    const fromUi = await runOf();
    await graph.locator('[data-node="script:f/p/first.ts"]').click();
    await page.getByRole("button", { name: "Run step" }).click();
    await page.getByRole("status").getByText("Started the step alone").waitFor();
    const stepFromUi = await runOf();

    const cli = spawnSluice(["pipeline", "run", "f/p", "--to", "second", "--detach", "--json"], root, ENV);
    expect(await cli.exited, cli.output()).toBe(0);
    const fromCli = (JSON.parse(cli.stdout()) as { run: string }).run;

    const hello = /enqueued hello (\S+)/.exec(dev.output())![1]!;
    const full = { fromUi, stepFromUi, fromCli, hello };
    expect({
      fromUi: await startedBy(full.fromUi),
      stepFromUi: await startedBy(full.stepFromUi),
      fromCli: await startedBy(full.fromCli),
      hello: await startedBy(full.hello),
    }).toEqual({ fromUi: "ana", stepFromUi: "ana", fromCli: "ana", hello: "ana" });
    await browser.shot("started-by", { fullPage: false });
    expect(browser.errors).toEqual([]);
  }, 90_000);

  it("a run the cascade started names its upstream script, linked to the run that wrote", async () => {
    const up = spawnSluice(["enqueue", "f/p/first", "--wait", "--json"], root, ENV);
    expect(await up.exited, up.output()).toBe(0);
    const upstream = (JSON.parse(up.stdout()) as { id: string }).id;
    let cascaded: string | undefined;
    for (let i = 0; i < 100 && !cascaded; i++) {
      const list = spawnSluice(["runs", "--workflow", "f/p/second", "--json"], root, ENV);
      expect(await list.exited, list.output()).toBe(0);
      const runs = JSON.parse(list.stdout()) as Array<{
        id: string;
        payload: { _sluice?: { upstream?: { run: string } } };
      }>;
      cascaded = runs.find((r) => r.payload?._sluice?.upstream?.run === upstream)?.id;
      if (!cascaded) await new Promise((r) => setTimeout(r, 150));
    }
    expect(cascaded, "the cascade run of f/p/second").toBeDefined();
    expect(await startedBy(cascaded!)).toBe("cascade from first.ts");
    const { page } = browser;
    await page.locator(`tr[data-run="${cascaded}"]`).getByRole("link", { name: "cascade from first.ts" }).click();
    await page.waitForURL(new RegExp(`/runs/${upstream}$`));
    expect(await page.locator("dl.facts").getByText("ana").count()).toBe(1);
    expect(browser.errors).toEqual([]);
  }, 60_000);
});
