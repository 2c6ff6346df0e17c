import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeStagingDir, ownerGone, sweepStaleStaging } from "./staging-owner.js";

describe("ownerGone", () => {
  it("is gone when no process has the pid, or one started at another time has it", () => {
    expect(ownerGone({ pid: 5, started: "100" }, { alive: false, started: null })).toBe(true);
    expect(ownerGone({ pid: 5, started: "100" }, { alive: true, started: "200" })).toBe(true);
    expect(ownerGone({ pid: 5, started: "100" }, { alive: true, started: "100" })).toBe(false);
    // start times unknown (no /proc): the pid alone decides
    expect(ownerGone({ pid: 5, started: null }, { alive: true, started: "100" })).toBe(false);
    expect(ownerGone({ pid: 5, started: "100" }, { alive: true, started: null })).toBe(false);
  });
});

describe("sweepStaleStaging", () => {
  let parent: string | undefined;
  afterEach(() => {
    if (parent) rmSync(parent, { recursive: true, force: true });
  });

  it("removes folders of dead or reused pids and old unmarked ones, keeps live writers' and young unmarked ones", async () => {
    parent = mkdtempSync(join(tmpdir(), "sluice-staging-test-"));
    const mine = makeStagingDir(parent);
    expect(JSON.parse(readFileSync(join(mine, ".sluice-writer.json"), "utf8")).pid).toBe(process.pid);
    // a real process that has exited: its pid answers no more
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    await new Promise((r) => child.on("exit", r));
    const folder = (name: string, owner?: object) => {
      const dir = join(parent!, `sluice-lake-stage-${name}`);
      mkdirSync(join(dir, "main", "t"), { recursive: true });
      writeFileSync(join(dir, "main", "t", "ducklake-x.parquet"), "x");
      if (owner) writeFileSync(join(dir, ".sluice-writer.json"), JSON.stringify(owner));
      return dir;
    };
    const dead = folder("dead", { pid: child.pid, started: null });
    const reused = folder("reused", { pid: process.pid, started: "1" });
    const oldUnmarked = folder("old");
    const old = (Date.now() - 2 * 60 * 60 * 1000) / 1000;
    utimesSync(oldUnmarked, old, old);
    const young = folder("young");
    expect(sweepStaleStaging(parent).sort()).toEqual([dead, oldUnmarked, reused].sort());
    expect([mine, young].map(existsSync)).toEqual([true, true]);
    expect([dead, reused, oldUnmarked].map(existsSync)).toEqual([false, false, false]);
  });
});
