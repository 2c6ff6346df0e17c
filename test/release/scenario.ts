/**
 * Deploy across machines, as users run it: two folders stand for two machines. The deployer has
 * the sources (and node_modules); the worker is an empty folder given only the database (a shared
 * SQLite file here, Postgres in `deploy-postgres.test.ts`). Every command is the real binary.
 */
import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSluice, type SluiceProcess } from "../helpers/processes.js";
import { makeProject, writeFiles } from "../helpers/project.js";
import { eventually, tempDir } from "../helpers/tmp.js";
import { DOUBLE, PROJECT, sleeper, sluice, sluiceJson, TICK } from "./fixtures.js";
import type { ReleaseChanges, ReleaseManifest } from "../../src/core/release.js";

/** How many minute boundaries lie in (from, to]. */
const minuteBoundaries = (from: number, to: number) => Math.floor(to / 60_000) - Math.floor(from / 60_000);

/** `sluice deploy --json`. */
interface Deployed {
  published: number | null;
  current: number | null;
  changes: ReleaseChanges;
  manifest: ReleaseManifest;
}

interface RunJson {
  id: string;
  workflow: string;
  status: string;
  result: unknown;
  version: string | null;
}

/** Reads and pokes the schedules table of the test database directly (the test's view of the store). */
export interface ScheduleProbe {
  list(): Promise<Array<{ workflow: string }>>;
  /** Sets a schedule's next tick to now. */
  makeDue(workflow: string): Promise<void>;
}

export function deployScenario(
  label: string,
  database: () => Promise<string>,
  probe: (db: string) => ScheduleProbe,
): void {
  describe(`deploy across machines (${label})`, () => {
    let db: string;
    let deployer: string;
    let machine: string;
    let worker: SluiceProcess;
    let schedules: ScheduleProbe;
    const runsOf = (workflow: string) =>
      sluiceJson<RunJson[]>(machine, "runs", "--db", db, "--workflow", workflow, "--limit", "50", "--json");
    const finished = async (workflow: string, id: string, timeoutMs = 20_000): Promise<RunJson> => {
      let run: RunJson | undefined;
      await eventually(async () => {
        run = (await runsOf(workflow)).find((r) => r.id === id);
        return run !== undefined && ["succeeded", "failed", "cancelled"].includes(run.status);
      }, timeoutMs);
      return run!;
    };
    const enqueue = async (workflow: string, payload = "{}") =>
      (await sluiceJson<{ id: string }>(machine, "enqueue", workflow, payload, "--db", db, "--json")).id;

    beforeAll(async () => {
      db = await database();
      schedules = probe(db);
      deployer = makeProject(PROJECT, "sluice-deployer-");
      machine = tempDir("sluice-worker-machine-");
    });
    afterAll(() => {
      rmSync(deployer, { recursive: true, force: true });
    });

    it("deploys: prints the changes and publishes release 1", async () => {
      const r = await sluice(deployer, "deploy", "--db", db);
      expect(r.err).toBe("");
      expect(r.code).toBe(0);
      for (const line of [
        "+ workflow f/demo/flow",
        "+ workflow f/demo/flow__mod/double",
        "+ workflow sleeper",
        "+ workflow f/pipe/produce",
        "+ file f/demo/flow__mod/double.ts",
      ])
        expect(r.out).toContain(line);
      expect(r.out).toMatch(/published release 1: /);
    }, 60_000);

    it("runs on a worker with only the database: workflows as code with __mod modules and an npm import", async () => {
      // The poll is an hour: every switch below happens on the store's change notice alone
      // (Postgres LISTEN/NOTIFY sent with the deploy's commit; SQLite's 25 ms change check).
      worker = spawnSluice(
        ["worker", "--release", "--db", db, "--inline-sleep", "100ms"],
        machine,
        { SLUICE_RELEASE_POLL_MS: "3600000" },
        { shared: true },
      );
      await worker.waitFor(/worker .* ready/, 30_000);
      expect(worker.output()).toContain("release 1 loaded");
      expect(existsSync(join(machine, "node_modules"))).toBe(false);
      const id = await enqueue("f/demo/flow", '{"n": 21}');
      const run = await finished("f/demo/flow", id);
      expect(run.status).toBe("succeeded");
      expect(run.result).toEqual({ doubled: 42, ms: 2000 });
      expect((await runsOf("f/demo/flow__mod/double")).map((r) => r.status)).toContain("succeeded");
    }, 60_000);

    it("runs a pipeline cascade from the release", async () => {
      const id = await enqueue("f/pipe/produce", '{"n": 7}');
      expect((await finished("f/pipe/produce", id)).status).toBe("succeeded");
      let consumed: RunJson | undefined;
      await eventually(async () => {
        consumed = (await runsOf("f/pipe/consume")).find((r) => r.status === "succeeded");
        return consumed !== undefined;
      }, 20_000);
      expect(consumed!.result).toEqual({ consumed: 7 });
    }, 60_000);

    it("a deploy while a run sleeps: the old run finishes on the old code, new runs use the new", async () => {
      const old = await enqueue("sleeper");
      await eventually(async () => (await runsOf("sleeper")).find((r) => r.id === old)?.status === "waiting", 15_000);
      // It sleeps 5 s: the deploy below lands while it is parked.
      writeFiles(deployer, { "workflows/sleeper.ts": sleeper("v2") });
      const r = await sluice(deployer, "deploy", "--db", db);
      expect(r.code).toBe(0);
      expect(r.out).toContain("~ workflow sleeper");
      expect(r.out).toContain("published release 2");
      await worker.waitFor(/release 2 loaded \(was 1\)/, 15_000);
      const fresh = await enqueue("sleeper");
      expect((await finished("sleeper", old)).result).toBe("v1");
      expect((await finished("sleeper", fresh)).result).toBe("v2");
    }, 60_000);

    it("a rollback republishes the earlier release: new runs get the old behaviour again", async () => {
      const r = await sluice(deployer, "deploy", "--db", db, "--rollback", "1");
      expect(r.code).toBe(0);
      expect(r.out).toContain("~ workflow sleeper");
      expect(r.out).toContain("published release 3 (rollback to release 1)");
      await worker.waitFor(/release 3 loaded \(was 2\)/, 15_000);
      const id = await enqueue("sleeper");
      expect((await finished("sleeper", id)).result).toBe("v1");
    }, 60_000);

    it("refuses an invalid release: non-zero exit, the error, nothing published", async () => {
      writeFiles(deployer, { "f/demo/broken.ts": "export async function main( {\n" });
      const r = await sluice(deployer, "deploy", "--db", db);
      expect(r.code).toBe(1);
      expect(r.err).toContain("f/demo/broken.ts");
      expect(r.err).toContain("release not published");
      rmSync(join(deployer, "f/demo/broken.ts"));
      const dry = await sluiceJson<{ current: number; published: null }>(
        deployer,
        "deploy",
        "--db",
        db,
        "--dry-run",
        "--json",
      );
      expect(dry.current).toBe(3);
      expect(dry.published).toBeNull();
    }, 60_000);

    it("cron follows the release: added once, fires once with two schedulers, removed stops firing", async () => {
      writeFiles(deployer, { "workflows/tick.ts": TICK });
      const from = Date.now();
      const add = await sluice(deployer, "deploy", "--db", db);
      expect(add.out).toContain("+ schedule tick");
      expect((await schedules.list()).map((s) => s.workflow)).toEqual(["tick"]);
      // The scheduler lives in `sluice server`; two of them on one database must not fire a tick twice.
      const servers = [0, 1].map(() =>
        spawnSluice(
          ["server", "--release", "--db", db, "--port", "0", "--workers", "none", "--scheduler-tick", "200ms"],
          machine,
        ),
      );
      await Promise.all(servers.map((s) => s.waitFor(/server \d+ ready/, 30_000)));
      expect((await schedules.list()).map((s) => s.workflow)).toEqual(["tick"]);
      // A minute-cron's next tick is up to a minute away: make it due now instead of waiting.
      await schedules.makeDue("tick");
      await eventually(async () => (await runsOf("tick")).some((r) => r.status === "succeeded"), 20_000);
      await new Promise((r) => setTimeout(r, 1_000));
      // One run for the forced tick, plus one per minute boundary passed meanwhile: never two per tick.
      const ticks = await runsOf("tick");
      expect(ticks.length).toBeGreaterThanOrEqual(1);
      expect(ticks.length).toBeLessThanOrEqual(1 + minuteBoundaries(from, Date.now()));
      rmSync(join(deployer, "workflows/tick.ts"));
      const remove = await sluice(deployer, "deploy", "--db", db);
      expect(remove.out).toContain("- schedule tick");
      expect(remove.out).toContain("- workflow tick");
      await Promise.all(servers.map((s) => s.waitFor(/release 5 loaded/, 15_000)));
      expect(await schedules.list()).toEqual([]);
      const settled = (await runsOf("tick")).length;
      await new Promise((r) => setTimeout(r, 1_500));
      expect(await runsOf("tick")).toHaveLength(settled);
      expect(await schedules.list()).toEqual([]);
      for (const s of servers) s.proc.kill("SIGTERM");
      await Promise.all(servers.map((s) => s.exited));
    }, 90_000);

    it("pull writes the release with __mod folders and a lock file; deploying the pulled folder publishes identical hashes", async () => {
      const pulled = tempDir("sluice-pulled-");
      const pull = await sluiceJson<{ release: number; written: string[]; lock: Record<string, string> }>(
        machine,
        "pull",
        pulled,
        "--db",
        db,
        "--json",
      );
      expect(pull.release).toBe(5);
      expect(pull.written).toContain("f/demo/flow__mod/double.ts");
      expect(readFileSync(join(pulled, "f/demo/flow__mod/double.ts"), "utf8")).toBe(DOUBLE);
      const lock = JSON.parse(readFileSync(join(pulled, "sluice-lock.json"), "utf8"));
      expect(lock).toEqual({ release: 5, files: pull.lock });
      // The deployer machine's view of the same sources, then the pulled folder's (after its `npm ci`).
      const original = await sluiceJson<Deployed>(deployer, "deploy", "--db", db, "--dry-run", "--json");
      symlinkSync(join(deployer, "node_modules"), join(pulled, "node_modules"), "dir");
      const again = await sluiceJson<Deployed>(pulled, "deploy", "--db", db, "--allow-empty", "--json");
      expect(again.published).toBe(6);
      expect(
        Object.values(again.changes).every((c) => c.added.length + c.changed.length + c.removed.length === 0),
      ).toBe(true);
      expect(again.manifest.files).toEqual(original.manifest.files);
      expect(again.manifest.modules).toEqual(original.manifest.modules);
      expect(Object.fromEntries(again.manifest.files.map((f) => [f.path, f.hash]))).toEqual(pull.lock);
    }, 60_000);

    it("push deploys one path and its __mod modules only", async () => {
      writeFiles(deployer, {
        "f/demo/flow__mod/double.ts": DOUBLE.replace("n * 2", "n * 3"),
        "workflows/sleeper.ts": sleeper("not pushed"),
      });
      const pushed = await sluiceJson<Deployed>(deployer, "push", "f/demo/flow", "--db", db, "--json");
      expect(pushed.published).toBe(7);
      expect(pushed.changes.workflows).toEqual({ added: [], changed: ["f/demo/flow__mod/double"], removed: [] });
      expect(pushed.changes.files.changed).toEqual(["f/demo/flow__mod/double.ts"]);
      await worker.waitFor(/release 7 loaded/, 15_000);
      const id = await enqueue("f/demo/flow", '{"n": 21}');
      expect((await finished("f/demo/flow", id)).result).toEqual({ doubled: 63, ms: 2000 });
      const sleeperRun = await enqueue("sleeper");
      // Releases 4-6 carry the deployer's sleeper.ts of then ("v2"); the push left it alone.
      expect((await finished("sleeper", sleeperRun)).result).toBe("v2");
      const bad = await sluice(deployer, "push", "f/nope", "--db", db);
      expect(bad.code).toBe(1);
      expect(bad.err).toContain("f/nope matches no file");
    }, 60_000);

    it("drains and stops the release worker on SIGTERM", async () => {
      worker.proc.kill("SIGTERM");
      expect(await worker.exited).toBe(0);
      expect(readdirSync(machine)).toEqual([".sluice"]);
    }, 30_000);
  });
}
