import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { NotAProjectError, projectMarkerOf } from "./project-marker.js";

const root = mkdtempSync(join(tmpdir(), "sluice-marker-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("recognising a Sluice project", () => {
  it("names the first marker a folder holds, and null for a folder with none", () => {
    const at = (name: string) => join(root, name);
    for (const name of ["plain", "json", "wf", "srcwf", "f", "u", "fake"]) mkdirSync(at(name));
    writeFileSync(join(at("plain"), "package.json"), "{}");
    mkdirSync(join(at("plain"), "src"));
    writeFileSync(join(at("json"), "sluice.json"), "{}");
    mkdirSync(join(at("wf"), "workflows"));
    mkdirSync(join(at("srcwf"), "src", "workflows"), { recursive: true });
    mkdirSync(join(at("f"), "f"));
    mkdirSync(join(at("u"), "u"));
    writeFileSync(join(at("fake"), "workflows"), "a file, not a folder");
    expect(projectMarkerOf(at("plain"))).toBeNull();
    expect(projectMarkerOf(at("json"))).toBe("sluice.json");
    expect(projectMarkerOf(at("wf"))).toBe("workflows/");
    expect(projectMarkerOf(at("srcwf"))).toBe("src/workflows/");
    expect(projectMarkerOf(at("f"))).toBe("f/");
    expect(projectMarkerOf(at("u"))).toBe("u/");
    expect(projectMarkerOf(at("fake"))).toBeNull();
    expect(projectMarkerOf(at("missing"))).toBeNull();
  });
  it("says what is missing and what to do, with a stable code", () => {
    const err = new NotAProjectError("/home/me/repo", 'workflow "welcome" is not published');
    expect(err.code).toBe("NOT_A_PROJECT");
    expect(err.terminal).toBe(true);
    expect(err.message).toMatch(/^workflow "welcome" is not published, and \/home\/me\/repo is not a Sluice project/);
    expect(err.message).toMatch(/--dir <project>/);
  });
});
