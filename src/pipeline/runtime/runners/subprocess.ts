/**
 * Python and Bash scripts, run as subprocesses. Python runs through `runner.py`, which
 * imports the script and calls `main(**args)` (arguments it does not take are dropped),
 * with Sluice's `wmill` module on its path; Bash gets the arguments it declares with
 * `name="$1"` lines as positional parameters and a `wmill` command on its PATH. Both get
 * `SLUICE_PARTITION` and `SLUICE_RUN_ID`. Output lines become the run's log lines; the
 * result is `main`'s return value (Python) or the last line of stdout (Bash, parsed as
 * JSON when it is JSON). A subprocess of a run that loses its lease is killed.
 */
import { pythonSdkDir } from "../../../loader/python/sdk-path.js";
import { traceEnv } from "../../../core/trace-context.js";
import { subprocessCarrier } from "../../../worker/tracing.js";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import type { MemberScript } from "../catalog.js";
import type { ScriptRunner } from "../definition.js";
import { PipelineRuntimeError, ScriptProcessError } from "../errors.js";
import type { PipelineRunContext } from "../run-context.js";
import { ensureBridge } from "./bridge.js";

/** Interpreters and limits of subprocess scripts. */
export interface SubprocessSettings {
  /** Default `python3`. */
  python: string;
  /** Default `bash`. */
  bash: string;
}

const DEFAULTS: SubprocessSettings = { python: "python3", bash: "bash" };

/** The `name="$N"` argument declarations of a Bash script, by position. */
export function bashArguments(source: string): string[] {
  const names: string[] = [];
  for (const m of source.matchAll(/^\s*(?:local\s+|readonly\s+|declare\s+)?([A-Za-z_]\w*)="?\$\{?(\d+)\}?"?\s*$/gm)) {
    const pos = Number(m[2]);
    if (pos >= 1 && names[pos - 1] === undefined) names[pos - 1] = m[1]!;
  }
  return Array.from(names, (n) => n ?? "");
}

function toArg(v: unknown): string {
  if (v === undefined || v === null) return "";
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** A runner for a Python or Bash member. */
export function subprocessRunner(
  owner: object,
  root: string,
  member: MemberScript,
  settings: Partial<SubprocessSettings>,
): ScriptRunner {
  const s = { ...DEFAULTS, ...settings };
  const python = member.language === "python";
  return {
    async run(ctx: PipelineRunContext, args: Record<string, unknown> | unknown[]): Promise<unknown> {
      const bridge = await ensureBridge(owner);
      const work = await mkdtemp(join(tmpdir(), "sluice-run-"));
      const { token, revoke } = bridge.register(ctx);
      try {
        const argsFile = join(work, "args.json");
        const resultFile = join(work, "result.json");
        await writeFile(argsFile, JSON.stringify(args));
        const script = join(root, member.path);
        const named = Array.isArray(args) ? {} : args;
        const positional = Array.isArray(args)
          ? args.map(toArg)
          : bashArguments(member.source).map((n) => toArg(named[n]));
        const [cmd, argv] = python
          ? [s.python, [join(bridge.dir, "runner.py"), script]]
          : [s.bash, [script, ...positional]];
        // The script continues the run's trace (W3C TRACEPARENT/TRACESTATE), never one this process inherited.
        const { TRACEPARENT: _tp, TRACESTATE: _ts, ...inherited } = process.env;
        const env: NodeJS.ProcessEnv = {
          ...inherited,
          ...traceEnv(subprocessCarrier(null)),
          SLUICE_BRIDGE: bridge.socket,
          SLUICE_BRIDGE_TOKEN: token,
          SLUICE_ARGS_FILE: argsFile,
          SLUICE_RESULT_FILE: resultFile,
          SLUICE_RUN_ID: ctx.runId,
          SLUICE_PARTITION: ctx.partition ?? "",
          PYTHONPATH: [pythonSdkDir(), process.env.PYTHONPATH].filter(Boolean).join(delimiter),
          PYTHONUNBUFFERED: "1",
          PATH: [join(bridge.dir, "bin"), process.env.PATH].filter(Boolean).join(delimiter),
        };
        const { code, signal, stdoutTail, stderrTail } = await runProcess(
          cmd,
          argv,
          join(root, member.folder),
          env,
          ctx,
        );
        if (code !== 0 || signal) {
          throw new ScriptProcessError(
            member.path,
            code,
            signal,
            stderrTail.filter((l) => l.trim()).slice(-1)[0] ?? "",
          );
        }
        if (python) {
          const text = await readFile(resultFile, "utf8").catch(() => "null");
          return JSON.parse(text) as unknown;
        }
        const last = stdoutTail.filter((l) => l.trim() !== "").slice(-1)[0];
        if (last === undefined) return null;
        try {
          return JSON.parse(last) as unknown;
        } catch {
          return last;
        }
      } finally {
        revoke();
        await rm(work, { recursive: true, force: true });
      }
    },
  };
}

interface Exit {
  code: number | null;
  signal: string | null;
  stdoutTail: string[];
  stderrTail: string[];
}

function runProcess(
  cmd: string,
  argv: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  ctx: PipelineRunContext,
): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const tails = { stdout: [] as string[], stderr: [] as string[] };
    const pump = (stream: NodeJS.ReadableStream, which: "stdout" | "stderr") => {
      let rest = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        const lines = (rest + chunk).split("\n");
        rest = lines.pop() ?? "";
        for (const line of lines) emit(line);
      });
      stream.on("end", () => rest && emit(rest));
      const emit = (line: string) => {
        const tail = tails[which];
        tail.push(line);
        if (tail.length > 50) tail.shift();
        ctx.log(which === "stdout" ? "info" : "warn", line);
      };
    };
    pump(child.stdout!, "stdout");
    pump(child.stderr!, "stderr");
    const watch = setInterval(() => {
      if (!ctx.exec.active && child.exitCode === null) child.kill("SIGKILL");
    }, 500);
    child.on("error", (err: NodeJS.ErrnoException) => {
      clearInterval(watch);
      reject(
        err.code === "ENOENT"
          ? new PipelineRuntimeError(
              "SCRIPT_INTERPRETER_MISSING",
              `cannot run ${ctx.member.path}: ${cmd} was not found; install it or put it on PATH`,
            )
          : err,
      );
    });
    child.on("close", (code, signal) => {
      clearInterval(watch);
      resolve({ code, signal, stdoutTail: tails.stdout, stderrTail: tails.stderr });
    });
  });
}
