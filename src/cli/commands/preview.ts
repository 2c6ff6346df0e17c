import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { decodeValue } from "../../core/serde.js";
import { createEngine } from "../../engine/engine.js";
import { Project } from "../../loader/project.js";
import { PipelineCatalog } from "../../pipeline/runtime/catalog.js";
import { isSluiceProject, NotAProjectError } from "../../loader/project-marker.js";
import { InvalidInputError } from "../../sdk/errors.js";
import { moduleName } from "../../worker/script-paths.js";
import type { CommandContext } from "../command.js";
import { readJsonInput } from "../json-input.js";
import { waitAnsweringApprovals } from "../approval-answer.js";
import { parseDurationOption } from "../options.js";
import { DIR_OPTION, resolveProject } from "../project.js";
import { errorSuffix } from "../format.js";
import { commandPlainScripts } from "../plain-scripts.js";

/**
 * What to say about a path preview cannot run: a pipeline script (DuckDB SQL, Bash, …) runs with
 * its pipeline's assets through `sluice pipeline run`, not in a throwaway database; anything else
 * is unknown, with what the project does have (its workflows and scripts, and its pipeline scripts).
 */
function unknownPath(root: string, path: string, known: readonly string[], pipelines: PipelineCatalog): string {
  const rel = path.replace(/^\.?\/+/, "");
  const member = pipelines.member(rel) ?? pipelines.member(moduleName(rel));
  if (member) {
    const step = member.path.slice(member.folder.length + 1);
    const partition = pipelines.scheme(member) ? " --partition <partition>" : "";
    return `${path} is a pipeline script: it reads and writes its pipeline's assets, so it does not run in preview's throwaway database; run it with \`sluice pipeline run ${member.folder} --to ${step}${partition}\` (add --dry-run to see the plan first)`;
  }
  const members = pipelines.members().map((m) => m.name);
  const runWith = "run them with `sluice pipeline run <folder>`";
  if (known.length)
    return `${path} is not a workflow or script of ${root}; known: ${known.join(", ")}${members.length ? `; pipeline scripts (${runWith}): ${members.join(", ")}` : ""}`;
  if (members.length)
    return `${path} is not a workflow or script of ${root}; its only scripts are pipeline scripts (${runWith}): ${members.join(", ")}`;
  return `${path} is not a workflow or script of ${root}, which has none (workflows/ modules; f/ and u/ scripts that define a workflow or export main, Python files with def main, .sql and .sh files)`;
}

/** `sluice preview <path> [payload]`: one run from the local files, in a throwaway database, without a server. */
export function registerPreview(program: Command, cx: CommandContext): void {
  program
    .command("preview")
    .description(
      "run one workflow or script once from the local files in a throwaway database (no server): prints its result, timeline and logs; approvals are answered on standard input (y, n or a JSON form value)",
    )
    .argument("<path>", "workflow name or module path, e.g. f/data/etl")
    .argument("[payload]", "JSON payload (default {})")
    .option(...DIR_OPTION)
    .option("--timeout <duration>", "give up after this long", "5m")
    .action(async (path: string, payloadText: string | undefined, opts: { dir?: string; timeout: string }) => {
      const timeoutMs = parseDurationOption(opts.timeout, "--timeout");
      const payload = await readJsonInput(cx.io, {
        inline: payloadText,
        file: undefined,
        inlineName: "payload",
        fileFlag: "--payload-file",
        fallback: {},
      });
      const project = resolveProject(cx.io, opts.dir);
      if (!isSluiceProject(project.root)) throw new NotAProjectError(project.root);
      const scratch = mkdtempSync(join(tmpdir(), "sluice-preview-"));
      const engine = createEngine({ database: join(scratch, "preview.db"), scheduler: false, captureConsole: true });
      const out = (t: string) => cx.io.stdout(t);
      const catalog = PipelineCatalog.scan(project.root);
      // plain SQL and Bash scripts run against the project's asset storage (object store, data tables, lakes)
      const plain = commandPlainScripts(engine, project.root, catalog, project.config.assets, cx.io.env);
      try {
        const loader = new Project(project.root, engine, cx.io.env);
        const report = await loader.loadAll();
        await plain.scripts.sync();
        await engine.start();
        const name = engine.registry.get(path) ? path : moduleName(path.replace(/^\.?\/+/, ""));
        if (!engine.registry.get(name)) {
          const broken = [...report.errors, ...plain.scripts.errors()].find((e) => moduleName(e.file) === name);
          throw new InvalidInputError(
            broken ? broken.error.message : unknownPath(project.root, path, engine.registry.names(), catalog),
            {
              code: "UNKNOWN_WORKFLOW",
            },
          );
        }
        const handle = await engine.enqueueRun(name, payload);
        const run = cx.io.prompt
          ? await waitAnsweringApprovals(engine, handle.id, timeoutMs, {
              prompt: cx.io.prompt,
              say: (t) => cx.io.stderr(t),
              actor: cx.io.env.SLUICE_USER ?? cx.io.env.USER ?? "preview",
            })
          : await engine.waitForRun(handle.id, timeoutMs);
        const children = await engine.store.listRuns({ parentId: run.id, limit: 1_000 });
        out(`timeline of ${name} (${run.status}):\n`);
        for (const s of await engine.store.getSteps(run.id)) {
          const ms = s.finishedAt === null ? "" : ` ${s.finishedAt - s.startedAt} ms`;
          out(`  ${s.kind.padEnd(8)} ${s.key} ${s.status}${ms}${s.target ? ` → ${s.target}` : ""}\n`);
        }
        out("logs:\n");
        for (const r of [run, ...children.reverse()])
          for (const l of await engine.store.getLogs(r.id))
            out(`  [${r.workflow}${r.task ? `:${r.task}` : ""}] ${l.level} ${l.message}\n`);
        if (run.status === "succeeded") out(`result:\n${JSON.stringify(decodeValue(run.result) ?? null, null, 2)}\n`);
        else {
          cx.io.stderr(`run ${run.status}${errorSuffix(run)}\n`);
          cx.setExitCode(1);
        }
      } finally {
        await engine.stop({ drain: 0 });
        await plain.close();
        rmSync(scratch, { recursive: true, force: true });
      }
    });
}
