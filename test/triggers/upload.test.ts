/**
 * Data uploads: an authenticated `POST /api/triggers/<id>/upload` to a real `sluice dev --auth`
 * stores the file in the project's object store (the default local one, `.sluice/s3`), then
 * starts a run with its `s3://` path; the same file uploaded again finds the same run.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";
import { runsOf } from "./project.js";

describe("data upload triggers", () => {
  it("stores an authenticated upload as an object and runs the target with its s3:// path", async () => {
    const root = makeProject(
      {
        "sluice.json": JSON.stringify({
          triggers: [{ name: "csv-in", kind: "data_upload", target: "ingest", maxBytes: 1000 }],
        }),
        "workflows/ingest.ts": `import { defineWorkflow } from "tako.sh";
export default defineWorkflow<{ s3: string; size: number }>("ingest", { handler: async (p) => ({ path: p.s3, size: p.size }) });
`,
      },
      "sluice-upload-",
    );
    const token = spawnSluice(["token", "create", "--scope", "operate", "--name", "uploader"], root);
    expect(await token.exited).toBe(0);
    const bearer = token.stdout().trim();
    const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch", "--auth"], root);
    await dev.waitFor(/UI: (http:\/\/127\.0\.0\.1:\d+)/, 30_000);
    const url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
    const csv = "id,amount\n1,10\n2,20\n";
    const upload = (name: string, body: string, auth = true) =>
      fetch(`${url}/api/triggers/csv-in/upload?name=${encodeURIComponent(name)}`, {
        method: "POST",
        headers: { "content-type": "text/csv", ...(auth && { authorization: `Bearer ${bearer}` }) },
        body,
      });

    expect((await upload("orders.csv", csv, false)).status).toBe(401);
    const res = await upload("orders.csv", csv);
    expect(res.status).toBe(201);
    const made = (await res.json()) as { s3: string; run: string; deduplicated: boolean };
    expect(made.s3).toMatch(/^s3:\/\/uploads\/csv-in\/\d{4}-\d{2}-\d{2}\/[0-9a-f]{16}-orders\.csv$/);
    expect(readFileSync(join(root, ".sluice", "s3", made.s3.slice("s3://".length)), "utf8")).toBe(csv);
    const run = await eventually(async () => {
      const r = (await runsOf(root, "ingest"))[0];
      return r?.status === "succeeded" ? r : null;
    }, 20_000);
    expect(run.id).toBe(made.run);
    expect(run.payload).toMatchObject({ s3: made.s3, name: "orders.csv", size: csv.length, contentType: "text/csv" });
    expect(run.result).toEqual({ path: made.s3, size: csv.length });

    const again = await upload("orders.csv", csv);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ ...made, deduplicated: true });
    expect((await runsOf(root, "ingest")).length).toBe(1);

    // Every accepted upload counts (the retried one too, like a redelivered message), also concurrent ones.
    const counted = await Promise.all([1, 2, 3, 4, 5].map((n) => upload(`part-${n}.csv`, `id\n${n}\n`)));
    expect(counted.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    const last = (await (await upload("last.csv", "id\n9\n")).json()) as { run: string };
    const listed = spawnSluice(["triggers", "--json"], root, { SLUICE_TOKEN: bearer });
    expect(await listed.exited).toBe(0);
    const csvIn = JSON.parse(listed.stdout()).find((t: any) => t.id === "csv-in");
    expect(csvIn).toMatchObject({ kind: "data_upload", messages: 8, lastRunId: last.run });
    expect(JSON.parse(csvIn.lastMessage)).toMatchObject({ kind: "data_upload", body: { name: "last.csv" } });

    const tooBig = await upload("big.csv", "x".repeat(2000));
    expect(tooBig.status).toBe(413);
    const badName = await upload("../etc/passwd", csv);
    expect(badName.status).toBe(400);
    expect(((await badName.json()) as any).error.message).toMatch(/file name "..\/etc\/passwd" is not allowed/);
    expect(
      (
        await fetch(`${url}/api/triggers/nope/upload?name=a.csv`, {
          method: "POST",
          headers: { authorization: `Bearer ${bearer}` },
          body: "x",
        })
      ).status,
    ).toBe(404);
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 60_000);
});
