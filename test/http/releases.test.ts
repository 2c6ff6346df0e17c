/** The release routes: list (who, when, what changed), one release, and which release a run used. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffReleases, RELEASE_FORMAT, type ReleaseManifest, sourceBlobKey } from "../../src/core/release.js";
import { startHarness, type HttpHarness } from "./harness.js";

let h: HttpHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const get = async (path: string, token = h.tokens.read) => {
  const res = await h.call("GET", path, { token });
  return { status: res.status, body: (await res.json()) as any };
};

/** The harness's published `hello` at its loaded code version, as a one-module release. */
async function manifestOfHello(): Promise<ReleaseManifest> {
  const hello = (await h.store.getWorkflow("hello"))!;
  return {
    format: RELEASE_FORMAT,
    files: [{ path: hello.source!, hash: "h-hello", bytes: 1 }],
    modules: [{ path: hello.source!, language: "typescript", bundle: hello.version!, workflows: ["hello"] }],
    workflows: [{ ...hello, removedAt: undefined } as never],
    pipelines: [],
  };
}

describe("releases", () => {
  it("lists none before the first deploy, and 404s an unknown release", async () => {
    expect((await get("/api/releases")).body).toEqual({ current: null, releases: [] });
    const missing = await get("/api/releases/9");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("UNKNOWN_RELEASE");
  });

  it("lists releases newest first with who and what changed, and tells which release a run used", async () => {
    const manifest = await manifestOfHello();
    const changes = diffReleases(null, manifest);
    const published = await h.store.publishRelease({
      manifest: JSON.stringify(manifest),
      changes: JSON.stringify(changes),
      createdBy: "ana",
      rollbackOf: null,
      expectedCurrent: null,
      blobs: [],
    });
    expect(published.ok).toBe(true);
    const list = await get("/api/releases");
    expect(list.body.current).toBe(1);
    expect(list.body.releases).toEqual([
      {
        id: 1,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        createdBy: "ana",
        rollbackOf: null,
        changes,
      },
    ]);
    expect(Math.abs(Date.parse(list.body.releases[0].createdAt) - Date.now())).toBeLessThan(60_000);
    const one = await get("/api/releases/1");
    expect(one.body.createdAt).toBe(list.body.releases[0].createdAt);
    const doc = (await (await h.call("GET", "/api/openapi.json")).json()) as any;
    expect(doc.components.schemas.ReleaseSummary.properties.createdAt.anyOf[0].format).toBe("date-time");
    expect(doc.paths["/api/releases"].get.responses["200"].content["application/json"].schema.$ref).toBe(
      "#/components/schemas/ReleaseList",
    );
    expect(one.body.manifest.modules[0].bundle).toBe(manifest.modules[0]!.bundle);
    const run = await h.start("hello", { name: "r" });
    expect((await get(`/api/runs/${run.id}/release`)).body).toEqual({
      run: run.id,
      version: manifest.modules[0]!.bundle,
      release: 1,
    });
    expect((await get("/api/runs/nope/release")).status).toBe(404);
  });

  it("diffs a release's files against the release before it, with both texts", async () => {
    const first = (await h.store.getRelease(1))!.manifest;
    const second: ReleaseManifest = {
      ...first,
      files: [
        { path: first.files[0]!.path, hash: "h-hello-2", bytes: 2 },
        { path: "notes.md", hash: "h-notes", bytes: 3 },
      ],
    };
    const published = await h.store.publishRelease({
      manifest: JSON.stringify(second),
      changes: JSON.stringify(diffReleases(first, second)),
      createdBy: "ana",
      rollbackOf: null,
      expectedCurrent: 1,
      blobs: [
        { hash: sourceBlobKey("h-hello-2"), code: "new text\n" },
        { hash: sourceBlobKey("h-notes"), code: "notes\n" },
      ],
    });
    expect(published.ok).toBe(true);
    const diff = await get("/api/releases/2/diff");
    expect(diff.status).toBe(200);
    expect(diff.body).toEqual({
      release: 2,
      previous: 1,
      files: [
        { path: "notes.md", change: "added", before: null, after: "h-notes", beforeText: null, afterText: "notes\n" },
        {
          path: first.files[0]!.path,
          change: "changed",
          before: "h-hello",
          after: "h-hello-2",
          // Release 1 stored no text for its file: the side is null, not an error.
          beforeText: null,
          afterText: "new text\n",
        },
      ].sort((a, b) => a.path.localeCompare(b.path)),
    });
    expect((await get("/api/releases/7/diff")).status).toBe(404);
  });

  it("needs a read token", async () => {
    expect((await h.call("GET", "/api/releases")).status).toBe(401);
  });
});
