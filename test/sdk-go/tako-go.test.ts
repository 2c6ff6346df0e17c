/**
 * Seed 002's Go code, unchanged: its import path `github.com/tako-sh/tako/sdk/go` is
 * packages/tako-go (a re-export of sdk-go). An app module set up as the docs say (a
 * `require` and two `replace` lines) builds the seed's `cmd/worker/main.go` byte for byte and
 * a producer calling the seed's enqueue and signal functions; `sluice server` on Postgres
 * starts the worker from `sluice.json`, the seed's run succeeds, and the seed's delayed
 * enqueue keeps its id, run-at and seven attempts.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabase } from "../helpers/postgres.js";
import { spawnSluice, type SluiceProcess } from "../helpers/processes.js";
import { REPO, makeProject } from "../helpers/project.js";
import { eventually, tempDir } from "../helpers/tmp.js";
import { GO_ENV, HAS_GO, SDK, SKIP_REASON } from "./go-env.js";

const COMPAT = join(REPO, "packages", "tako-go");

function go(args: string[], cwd: string): { status: number | null; out: string } {
  mkdirSync(GO_ENV.GOCACHE!, { recursive: true });
  const r = spawnSync("go", args, { cwd, env: { ...process.env, ...GO_ENV }, encoding: "utf8" });
  return { status: r.status, out: r.stdout + r.stderr };
}

/** The top-level names `go doc -short` lists for a package (functions, types, variables). */
function exportedNames(dir: string): string[] {
  const doc = go(["doc", "-short", "."], dir);
  expect(doc.status, doc.out).toBe(0);
  return doc.out
    .split("\n")
    .map((l) => /^(?:func|type|var|const) (\w+)/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined)
    .sort();
}

describe.skipIf(!HAS_GO)(HAS_GO ? "seed 002's Go import path" : `seed 002's Go import path ${SKIP_REASON}`, () => {
  it("re-exports every top-level name of sdk-go, and the seed's examples vet with the seed's import path", () => {
    expect(exportedNames(COMPAT)).toEqual(exportedNames(SDK));
    const vet = go(["vet", "./..."], COMPAT);
    expect(vet.status, vet.out).toBe(0);
    for (const f of ["examples/fulfill-order/main.go", "examples/seed002/delayed.go"])
      expect(readFileSync(join(COMPAT, f), "utf8")).toContain('workflow "github.com/tako-sh/tako/sdk/go"');
  }, 180_000);

  describe("an app built on it, run by sluice server on Postgres", () => {
    let root: string;
    let server: SluiceProcess;
    let db: string;
    const bins = tempDir("sluice-tako-go-bin-");

    beforeAll(async () => {
      db = await testDatabase("takogo");
      // The app's go.mod as sdk-go/README.md says: the seed's module path, pointed at Sluice.
      const app = makeProject(
        {
          "go.mod": [
            "module example.com/shop",
            "",
            "go 1.19",
            "",
            "require github.com/tako-sh/tako/sdk/go v0.0.0",
            "require sluice.dev/sdk-go v0.0.0 // indirect",
            "",
            `replace github.com/tako-sh/tako/sdk/go => ${COMPAT}`,
            `replace sluice.dev/sdk-go => ${SDK}`,
            "",
          ].join("\n"),
          // The seed's file, byte for byte, and the app-owned helper it calls.
          "cmd/worker/main.go": readFileSync(join(COMPAT, "examples/fulfill-order/main.go"), "utf8"),
          "cmd/worker/helper.go": readFileSync(join(COMPAT, "examples/fulfill-order/helper.go"), "utf8"),
          "cmd/producer/main.go": `package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/tako-sh/tako/sdk/go/examples/seed002"
)

func main() {
	ctx := context.Background()
	if os.Args[1] == "signal" {
		n, err := seed002.ApproveOrder(ctx, "ord_1", "ann")
		must(err)
		fmt.Println(n)
		return
	}
	id, err := seed002.EnqueueOrder(ctx, "ord_1")
	must(err)
	first, err := seed002.EnqueueDelayedOrder(ctx)
	must(err)
	again, err := seed002.EnqueueDelayedOrder(ctx)
	must(err)
	out, _ := json.Marshal(map[string]any{"id": id, "delayed": first.ID, "deduplicated": again.Deduplicated})
	fmt.Println(string(out))
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
`,
        },
        "sluice-tako-go-",
      );
      for (const cmd of ["worker", "producer"]) {
        const b = go(["build", "-o", join(bins, cmd), `./cmd/${cmd}`], app);
        expect(b.status, b.out).toBe(0);
      }
      root = makeProject(
        { "sluice.json": JSON.stringify({ workers: [{ command: `exec ${join(bins, "worker")}`, group: "go" }] }) },
        "sluice-tako-go-srv-",
      );
      server = spawnSluice(["server", "--port", "0", "--workers", "none"], root, { SLUICE_DATABASE_URL: db });
      await server.waitFor(/API and UI: (http:\/\/127\.0\.0\.1:\d+)/, 60_000);
      // The worker has registered fulfill-order once the CLI may enqueue it.
      await eventually(async () => {
        const p = spawnSluice(["enqueue", "fulfill-order", '{"orderId":"probe"}', "--id", "probe"], root, {
          SLUICE_DATABASE_URL: db,
        });
        return (await p.exited) === 0;
      }, 60_000);
    }, 240_000);

    afterAll(async () => {
      if (server) {
        server.proc.kill("SIGTERM");
        await server.exited;
      }
    });

    const show = async (id: string) => {
      const p = spawnSluice(["show", id, "--json"], root, { SLUICE_DATABASE_URL: db });
      expect(await p.exited, p.stderr()).toBe(0);
      return JSON.parse(p.stdout());
    };

    it("the seed's worker runs the seed's enqueues; its delayed run keeps id, run-at and 7 attempts", async () => {
      const url = /API and UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())![1]!;
      const token = spawnSluice(["token", "create", "--scope", "worker", "--name", "producer"], root, {
        SLUICE_DATABASE_URL: db,
      });
      expect(await token.exited, token.stderr()).toBe(0);
      const producer = spawnSync(join(bins, "producer"), ["enqueue"], {
        env: { ...process.env, SLUICE_URL: url, SLUICE_TOKEN: token.stdout().trim() },
        encoding: "utf8",
      });
      expect(producer.status, producer.stderr).toBe(0);
      const out = JSON.parse(producer.stdout) as { id: string; delayed: string; deduplicated: boolean };
      expect(out).toMatchObject({ delayed: "fulfill:ord_123", deduplicated: true });
      await eventually(async () => (await show(out.id)).status === "succeeded", 30_000);
      expect((await show(out.id)).steps.map((s: { key: string }) => s.key)).toEqual(["fulfill"]);
      const delayed = await show("fulfill:ord_123");
      expect(delayed).toMatchObject({ status: "pending", maxAttempts: 7, payload: { orderId: "ord_123" } });
      // runAt: time.Now().Add(time.Minute), kept by the second (deduplicated) enqueue.
      expect(Date.parse(delayed.readyAt) - Date.parse(delayed.createdAt)).toBeGreaterThan(50_000);
      expect(server.output()).toMatch(/\[go\] .*fulfilling ord_1 \(key [^)]+:fulfill\)/);
      const signal = spawnSync(join(bins, "producer"), ["signal"], {
        env: { ...process.env, SLUICE_URL: url, SLUICE_TOKEN: token.stdout().trim() },
        encoding: "utf8",
      });
      expect(signal.status, signal.stderr).toBe(0);
      expect(signal.stdout.trim()).toBe("0"); // nothing waits on approval:order-ord_1
    }, 60_000);
  });
});
