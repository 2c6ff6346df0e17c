import { describe, expect, it } from "vitest";
import { bufferIO } from "./io.js";
import { commandsFor, run } from "./run.js";

const ALL = [
  "dev",
  "worker",
  "enqueue",
  "runs",
  "show",
  "logs",
  "signal",
  "cancel",
  "approve",
  "server",
  "token",
  "pipeline",
  "lake",
  "deploy",
  "push",
  "pull",
  "releases",
  "preview",
  "triggers",
];

describe("commandsFor: which command modules a process loads", () => {
  it("loads only the command argv names", () => {
    expect(commandsFor(["worker", "--group", "email"])).toEqual(["worker"]);
    expect(commandsFor(["pipeline", "run", "f/x"])).toEqual(["pipeline"]);
  });

  it("loads none for the version", () => {
    expect(commandsFor(["--version"])).toEqual([]);
    expect(commandsFor(["-V"])).toEqual([]);
  });

  it("loads every command for help, no command and an unknown one", () => {
    for (const argv of [[], ["--help"], ["-h"], ["help", "worker"], ["wrker"], ["constructor"]])
      expect(commandsFor(argv), argv.join(" ")).toEqual(ALL);
  });
});

describe("run with one command loaded", () => {
  it("prints the version", async () => {
    const io = bufferIO(process.cwd());
    expect(await run(["--version"], io)).toBe(0);
    expect(io.out.join("")).toBe("0.1.0\n");
  });

  it("prints the command's own help", async () => {
    const io = bufferIO(process.cwd());
    expect(await run(["worker", "--help"], io)).toBe(0);
    expect(io.out.join("")).toContain("--from-build <file>");
  });

  it("lists every command in the program's help and suggests one for a typo", async () => {
    const help = bufferIO(process.cwd());
    expect(await run(["--help"], help)).toBe(0);
    for (const name of ALL) expect(help.out.join(""), name).toMatch(new RegExp(`^  ${name}\\b`, "m"));
    const typo = bufferIO(process.cwd());
    expect(await run(["wrker"], typo)).toBe(2);
    expect(typo.err.join("")).toContain("Did you mean worker?");
  });
});
