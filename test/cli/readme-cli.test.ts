/**
 * The README's command tables against the real binary's `--help`: every `sluice <command>
 * [<subcommand>]` a table row names exists, every `--flag` the row shows is an option of that
 * command, a value shown as `[--flag 30s]` (a literal, with a digit, not a placeholder such as `n`)
 * is the default its help states, and every command `sluice --help` lists is named somewhere in
 * the README. Catches a flag renamed or removed in code while the README still shows it, a default
 * changed on one side only, and a new command nobody documented.
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
  /** `[--flag value]` pairs whose value is a literal (has a digit): the README states it as the default. */
  defaults: [string, string][];
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
      const flags = [...span!.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]);
      const defaults = [...span!.matchAll(/\[(--[a-z-]+) ([^\]\s|]*\d[^\]\s|]*)\]/g)].map(
        (m) => [m[1]!, m[2]!] as [string, string],
      );
      usages.push({ span: `sluice ${span}`, commands, flags, defaults });
    }
  }
  return usages;
}

/** The help of one option: its line and the description lines under it, joined; undefined when there is none. */
function optionHelp(text: string, flag: string): string | undefined {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => new RegExp(`^\\s+(-\\w, )?${flag}[\\s,]`).test(l + " "));
  if (start < 0) return undefined;
  const end = lines.findIndex((l, i) => i > start && /^\s+(-\w, )?--|^\S|^$/.test(l));
  return lines
    .slice(start, end < 0 ? undefined : end)
    .join(" ")
    .replace(/\s+/g, " ");
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
          if (optionHelp(text, flag) === undefined)
            problems.push(`${usage.span}: "sluice ${key}" has no option ${flag}`);
        for (const [flag, value] of usage.defaults) {
          const option = optionHelp(text, flag) ?? "";
          if (!option.includes(`default: "${value}"`) && !option.includes(`default ${value}`))
            problems.push(`${usage.span}: ${flag} ${value}, but "sluice ${key} --help" says: ${option}`);
        }
      }
    }
    // An option's help that writes its default out as well as commander's "(default: …)" says it twice.
    for (const [key, text] of helps)
      for (const flag of new Set([...text.matchAll(/^\s+(?:-\w, )?(--[a-z][a-z-]*)/gm)].map((m) => m[1]!))) {
        const option = optionHelp(text, flag) ?? "";
        if ((option.match(/\(default/g) ?? []).length > 1)
          problems.push(`"sluice ${key} --help" states ${flag}'s default twice: ${option}`);
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
