/**
 * bin/sluice.js picks the CLI bundle (dist/bundle/, `npm run build:cli`) when it is at least as
 * new as the compiled CLI, else the compiled modules (after a bare `tsc` the bundle is stale).
 * Run on a copy of the launcher in a scratch package whose two entry points say who they are.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { REPO } from "../helpers/project.js";

let pkg: string;
const compiled = () => join(pkg, "dist", "cli", "main.js");
const bundle = () => join(pkg, "dist", "bundle", "main.js");
const setTime = (file: string, seconds: number) => utimesSync(file, seconds, seconds);
const launch = () => {
  try {
    return execFileSync(process.execPath, [join(pkg, "bin", "sluice.js")], { encoding: "utf8", stdio: "pipe" });
  } catch (err) {
    return `exit ${(err as { status: number }).status}: ${(err as { stderr: string }).stderr}`;
  }
};

beforeEach(() => {
  pkg = mkdtempSync(join(tmpdir(), "sluice-launcher-"));
  mkdirSync(join(pkg, "bin"));
  copyFileSync(join(REPO, "bin", "sluice.js"), join(pkg, "bin", "sluice.js"));
  writeFileSync(join(pkg, "package.json"), '{"type": "module"}');
  mkdirSync(join(pkg, "dist", "cli"), { recursive: true });
  writeFileSync(compiled(), 'console.log("compiled");');
});
afterEach(() => rmSync(pkg, { recursive: true, force: true }));

it("runs the bundle when it is as new as the compiled CLI or newer", () => {
  mkdirSync(join(pkg, "dist", "bundle"));
  writeFileSync(bundle(), 'console.log("bundle");');
  setTime(compiled(), 1_000_000);
  setTime(bundle(), 1_000_000); // npm pack gives every file the same time
  expect(launch()).toBe("bundle\n");
  setTime(bundle(), 1_000_100);
  expect(launch()).toBe("bundle\n");
});

it("runs the compiled modules when the bundle is older (a bare tsc) or missing", () => {
  mkdirSync(join(pkg, "dist", "bundle"));
  writeFileSync(bundle(), 'console.log("bundle");');
  setTime(bundle(), 1_000_000);
  setTime(compiled(), 1_000_100);
  expect(launch()).toBe("compiled\n");
  rmSync(join(pkg, "dist", "bundle"), { recursive: true });
  expect(launch()).toBe("compiled\n");
});

it("says to build when nothing is built", () => {
  rmSync(join(pkg, "dist"), { recursive: true });
  expect(launch()).toMatch(/^exit 1: sluice: the CLI is not built yet\. Run `npm run build`/);
});
