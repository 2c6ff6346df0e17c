/**
 * `/api/ready` of a real `sluice server` process on Postgres whose `sluice.json` worker command
 * cannot start (a Go worker that does not build): not ready (503), the `workers` check naming the
 * command, how it exited and its last output line; a server whose worker command stays up is
 * ready. It used to answer ready while the only worker of the machine crash-looped (seen only
 * in the server's log), so a load balancer kept sending it work.
 */
import { describe, expect, it } from "vitest";
import { testDatabase } from "../helpers/postgres.js";
import { spawnSluice, type SluiceProcess } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";
import { eventually } from "../helpers/tmp.js";

interface Ready {
  ready: boolean;
  checks: Record<string, { ok: boolean; detail: string }>;
}

async function ready(url: string): Promise<{ status: number; body: Ready }> {
  const res = await fetch(`${url}/api/ready`);
  return { status: res.status, body: (await res.json()) as Ready };
}

/** Starts `sluice server` on `db` with one worker command; @returns it and its API URL. */
async function serverWith(db: string, command: string): Promise<{ server: SluiceProcess; url: string }> {
  const root = makeProject({ "sluice.json": JSON.stringify({ workers: [{ command, group: "go" }] }) });
  const server = spawnSluice(["server", "--port", "0", "--workers", "none"], root, { SLUICE_DATABASE_URL: db });
  await server.waitFor(/server \d+ ready/, 30_000);
  return { server, url: /API and UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())![1]! };
}

async function stop(server: SluiceProcess): Promise<void> {
  server.proc.kill("SIGTERM");
  await server.exited;
}

describe("GET /api/ready with sluice.json worker commands", () => {
  it("is not ready while the worker command keeps exiting, naming it, its exit and last output", async () => {
    const db = await testDatabase("wcready");
    // What `go run ./cmd/worker` prints and does when the worker does not build.
    const broken = `echo '# example.com/shop/cmd/worker' >&2; echo 'cmd/worker/main.go:83:17: undefined: chargeCard' >&2; exit 2`;
    const { server, url } = await serverWith(db, broken);
    try {
      await server.waitFor(/\[go\] worker command exited \(code 2\)/, 15_000);
      const down = await eventually(async () => {
        const r = await ready(url);
        return r.status === 503 ? r : null;
      }, 10_000);
      expect(down.body.ready).toBe(false);
      expect(down.body.checks.workers!.ok).toBe(false);
      expect(down.body.checks.workers!.detail).toContain("worker command [go]");
      expect(down.body.checks.workers!.detail).toContain("keeps exiting");
      expect(down.body.checks.workers!.detail).toContain("code 2");
      expect(down.body.checks.workers!.detail).toContain("cmd/worker/main.go:83:17: undefined: chargeCard");
      // The other checks are fine: only the worker command makes it not ready.
      expect(down.body.checks.database!.ok).toBe(true);
      expect(down.body.checks.lanes!.ok).toBe(true);
    } finally {
      await stop(server);
    }
  }, 60_000);

  it("is ready while the worker command runs", async () => {
    const db = await testDatabase("wcready");
    const { server, url } = await serverWith(db, "exec sleep 120");
    try {
      await server.waitFor(/worker command \[go\]: exec sleep 120 \(pid \d+\)/, 10_000);
      const up = await ready(url);
      expect(up.status).toBe(200);
      expect(up.body.checks.workers).toEqual({ ok: true, detail: "1 worker command(s), none failing" });
    } finally {
      await stop(server);
    }
  }, 60_000);
});
