/**
 * The README's command tables against the real binary's `--help`: every `sluice <command>
 * [<subcommand>]` a table row names exists, every `--flag` the row shows is an option of that
 * command, and every command `sluice --help` lists is named somewhere in the README. Catches a
 * flag renamed or removed in code while the README still shows it, and a new command nobody
 * documented.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { finished, spawnSluice } from "../helpers/processes.js";
import { REPO } from "../helpers/project.js";
import { tempDir } from "../helpers/tmp.js";

const README = readFileSync(join(REPO, "README.md"), "utf8");

/** One `sluice …` code span of a table row's first cell: the command words to ask `--help` of and its flags. */
interface DocumentedUsage {
  span: string;
  commands: string[][];
  flags: string[];
}

/** The `sluice …` spans in the first cell of each README table row, `\|` read as `|`. */
function documentedUsages(markdown: string): DocumentedUsage[] {
  const usages: DocumentedUsage[] = [];
  for (const line of markdown.split("\n")) {
    if (!line.startsWith("| `sluice ")) continue;
    const cell = line.split(/(?<!\\)\|/)[1]!.replace(/\\\|/g, "|");
    for (const [, span] of cell.matchAll(/`sluice ([^`]*)`/g)) {
      const [command, second] = span!.split(/\s+/);
      const subs = second !== undefined && /^[a-z]+(\|[a-z]+)*$/.test(second) ? second.split("|") : [];
      const commands = subs.length === 0 ? [[command!]] : subs.map((s) => [command!, s]);
      usages.push({ span: `sluice ${span}`, commands, flags: [...span!.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]) });
    }
  }
  return usages;
}

async function help(cwd: string, words: string[]): Promise<string> {
  const r = await finished(spawnSluice([...words, "--help"], cwd));
  expect(r.code, `sluice ${words.join(" ")} --help: ${r.err}`).toBe(0);
  return r.out;
}

describe("README command tables agree with --help", () => {
  it("every command, subcommand and flag a table row shows exists", async () => {
    const cwd = tempDir("readme-cli-");
    const usages = documentedUsages(README);
    expect(usages.length).toBeGreaterThan(20);
    const helps = new Map<string, string>();
    const problems: string[] = [];
    for (const usage of usages) {
      for (const words of usage.commands) {
        const key = words.join(" ");
        if (!helps.has(key)) helps.set(key, await help(cwd, words));
        const text = helps.get(key)!;
        // An unknown subcommand prints its parent's help: the usage line must name it.
        if (!text.startsWith(`Usage: sluice ${key} `)) problems.push(`${usage.span}: no command "sluice ${key}"`);
        for (const flag of usage.flags)
          if (!new RegExp(`^\\s+(-\\w, )?${flag}[\\s,]`, "m").test(text))
            problems.push(`${usage.span}: "sluice ${key}" has no option ${flag}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("every command of sluice --help is named in the README", async () => {
    const text = await help(tempDir("readme-cli-"), []);
    const commands = [...text.split("Commands:")[1]!.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]!);
    expect(commands).toContain("dev");
    const missing = commands.filter((c) => c !== "help" && !new RegExp("`sluice " + c + "[ `]").test(README));
    expect(missing).toEqual([]);
  });
});
