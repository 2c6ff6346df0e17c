/**
 * `sluice pull` as users run it (the real binary, a SQLite database): it refuses to overwrite a
 * file changed since it was pulled (naming it, writing nothing) unless `--force`, writes files
 * missing locally, and a pull that fails (no such release, no release at all) creates no folder.
 * `sluice releases` lists what was published (`deploy --rollback` of a missing release points to it).
 */
import { appendFileSync, existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject, writeFiles } from "../helpers/project.js";
import { tempDir } from "../helpers/tmp.js";
import { sluice } from "./fixtures.js";

const hello = (answer: string) => `import { defineWorkflow } from "sluice";

export const hello = defineWorkflow("hello", { handler: async () => "${answer}" });
`;
const OTHER = `export async function main() {
  return "other";
}
`;

describe("sluice pull and sluice releases", () => {
  it("refuses to overwrite local changes unless --force, writes missing files, and creates nothing when it fails", async () => {
    const db = join(tempDir("sluice-pull-db-"), "shared.db");
    const deployer = makeProject({ "workflows/hello.ts": hello("v1"), "f/x/other.ts": OTHER }, "sluice-pull-deployer-");
    const empty = join(tempDir("sluice-pull-empty-"), "none.db");
    const target = join(tempDir("sluice-pull-"), "p");
    // No release yet, or no such release: exit 1 and no folder.
    const none = await sluice(deployer, "pull", target, "--db", empty);
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/has no release yet/);
    expect(existsSync(target)).toBe(false);

    expect((await sluice(deployer, "deploy", "--db", db)).code).toBe(0);
    writeFiles(deployer, { "workflows/hello.ts": hello("v2") });
    expect((await sluice(deployer, "deploy", "--db", db)).code).toBe(0);
    // sluice releases lists them (what deploy --rollback of a missing release points to).
    const rollback = await sluice(deployer, "deploy", "--db", db, "--rollback", "99");
    expect(rollback.code).toBe(1);
    expect(rollback.err).toMatch(/release 99 does not exist .*: list the releases with sluice releases/);
    const listed = await sluice(deployer, "releases", "--db", db);
    expect(listed.code, listed.err).toBe(0);
    expect(listed.out).toMatch(
      /^RELEASE +PUBLISHED +BY +CHANGED *\n2 \(current\) +\d{4}-\d\d-\d\d .*\+0 ~1 -0 files.*\n1 +\d{4}-.*\+2 ~0 -0 files/,
    );
    const asJson = JSON.parse((await sluice(deployer, "releases", "--db", db, "--json")).out);
    expect(asJson.current).toBe(2);
    expect(asJson.releases.map((r: { id: number }) => r.id)).toEqual([2, 1]);
    expect(asJson.releases[0].createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // From another folder, --dir names the project (as on the other commands).
    const elsewhere = await sluice(tempDir("sluice-elsewhere-"), "releases", "--dir", deployer, "--db", db, "--json");
    expect(elsewhere.code, elsewhere.err).toBe(0);
    expect(JSON.parse(elsewhere.out).current).toBe(2);
    const noReleases = await sluice(deployer, "releases", "--db", empty);
    expect(noReleases.out).toMatch(/^no releases in .*: publish one with sluice deploy/);

    const missing = await sluice(deployer, "pull", target, "--db", db, "--release", "99");
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/release 99 does not exist/);
    expect(existsSync(target)).toBe(false);

    // Release 2, then a local edit: pulling release 1 over it is refused and writes nothing.
    const first = await sluice(deployer, "pull", target, "--db", db);
    expect(first.code, first.err).toBe(0);
    const file = join(target, "workflows/hello.ts");
    appendFileSync(file, "// local work\n");
    const edited = readFileSync(file, "utf8");
    const lock = readFileSync(join(target, "sluice-lock.json"), "utf8");
    const refused = await sluice(deployer, "pull", target, "--db", db, "--release", "1");
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/1 file\(s\) .* changed since they were pulled.*: workflows\/hello\.ts; .*--force/);
    expect(readFileSync(file, "utf8")).toBe(edited);
    expect(readFileSync(join(target, "sluice-lock.json"), "utf8")).toBe(lock);

    // A file missing locally is just written; an unchanged one is updated.
    rmSync(join(target, "f/x/other.ts"));
    const forced = await sluice(deployer, "pull", target, "--db", db, "--release", "1", "--force");
    expect(forced.code, forced.err).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(hello("v1"));
    expect(readFileSync(join(target, "f/x/other.ts"), "utf8")).toBe(OTHER);
    expect(JSON.parse(readFileSync(join(target, "sluice-lock.json"), "utf8")).release).toBe(1);

    // Unchanged since the last pull: release 2 replaces release 1's text without --force.
    rmSync(join(target, "f/x/other.ts"));
    const again = await sluice(deployer, "pull", target, "--db", db);
    expect(again.code, again.err).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(hello("v2"));
    expect(readFileSync(join(target, "f/x/other.ts"), "utf8")).toBe(OTHER);
  }, 60_000);
});
