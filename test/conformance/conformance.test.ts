/**
 * The conformance suite (issue 12): the same scenarios against the built-in worker
 * (`sluice dev` running TypeScript workflows) and against the Go SDK (`sluice dev` with
 * a Go worker command in sluice.json, over the worker protocol). Each run is driven and
 * read back with the CLI, as a user would.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSluice, type SluiceProcess } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";
import { eventually } from "../helpers/tmp.js";
import { SCENARIOS } from "./scenarios.js";
import { TARGETS } from "./targets.js";

async function cli(args: string[], root: string): Promise<{ code: number | string; out: string; err: string }> {
  const p = spawnSluice(args, root);
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}

for (const target of TARGETS) {
  describe.skipIf(target.skip !== null)(
    target.skip ? `conformance: ${target.name} ${target.skip}` : `conformance: ${target.name}`,
    () => {
      let root: string;
      let dev: SluiceProcess;
      beforeAll(async () => {
        const prepared = target.prepare();
        root = makeProject(prepared.devFiles, "sluice-conf-");
        dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root, {}, { shared: true });
        await dev.waitFor(prepared.devReady, 60_000);
        // The workflows are registered (the Go worker registers them after it starts).
        await eventually(async () => (await cli(["enqueue", "conf-fail", "{}"], root)).code === 0, 20_000);
      }, 180_000);
      afterAll(async () => {
        dev?.proc.kill("SIGTERM");
        if (dev) expect(await dev.exited).toBe(0);
      });

      SCENARIOS.forEach((s, i) => {
        const unsupported = target.unsupported[s.title];
        it.skipIf(unsupported !== undefined)(
          unsupported ? `${s.title} (skipped: ${unsupported})` : s.title,
          async () => {
            const tag = `${target.name.replace(/\W+/g, "-")}-${i}`;
            const enq = await cli(["enqueue", s.workflow, JSON.stringify(s.payload(tag)), "--json"], root);
            expect(enq.code, enq.err).toBe(0);
            const id = JSON.parse(enq.out).id as string;
            const show = async () => {
              const r = await cli(["show", id, "--json"], root);
              expect(r.code, r.err).toBe(0);
              return JSON.parse(r.out);
            };
            if (s.signal) {
              await eventually(async () => (await show()).status === "waiting", 20_000);
              const sig = await cli(["signal", s.signal.event(tag), JSON.stringify(s.signal.payload)], root);
              expect(sig.out).toMatch(/woke 1 run/);
            }
            if (s.approveAs) {
              await eventually(async () => (await show()).status === "waiting", 20_000);
              const ok = await cli(["approve", id, "--as", s.approveAs], root);
              expect(ok.code, ok.err + ok.out).toBe(0);
            }
            if (s.resumeLinkOf) {
              const waiting = await eventually(async () => {
                const r = await show();
                return r.status === "waiting" ? r : null;
              }, 20_000);
              const links = waiting.steps.find((st: any) => st.key === s.resumeLinkOf).value;
              expect(links.approvalPage).toContain(`/approve/${encodeURIComponent(id)}/waitForApproval?token=`);
              // The link as the run made it, with no bearer token: the signed token is the credential.
              const res = await fetch(links.resume, { method: "POST" });
              expect(res.status, await res.clone().text()).toBe(200);
            }
            const run = await eventually(async () => {
              const r = await show();
              return ["succeeded", "failed", "cancelled"].includes(r.status) ? r : null;
            }, 30_000);
            const key = (k: string) => k.replace("TAG", tag);
            expect({ status: run.status, attempt: run.attempt }).toEqual({
              status: s.expect.status,
              attempt: s.expect.attempt,
            });
            expect(run.steps.map((st: any) => [st.key, st.status])).toEqual(
              s.expect.steps.map(([k, st]) => [key(k), st]),
            );
            for (const [k, v] of Object.entries(s.expect.values ?? {}))
              expect(run.steps.find((st: any) => st.key === key(k)).value ?? null, k).toEqual(v);
            if (s.expect.error) expect(run.error?.message).toMatch(s.expect.error);
            // The body of step "a" ran once, though the Go worker claimed the run twice (its sleep parked).
            if (s.workflow === "conf-steps") expect(dev.output().match(/conf-steps: a ran/g)).toHaveLength(1);
          },
          60_000,
        );
      });
    },
  );
}
