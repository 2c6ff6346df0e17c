/**
 * The workers under test in the conformance suite: the built-in worker and each SDK.
 * A new SDK (Python, …) adds one {@link ConformanceTarget} to {@link TARGETS}, plus a
 * worker program defining the conformance workflows; test/conformance/README.md is the
 * contract that program follows.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../helpers/project.js";
import { tempDir } from "../helpers/tmp.js";
import { GO_ENV, HAS_GO, SDK, SKIP_REASON } from "../sdk-go/go-env.js";
import { CONFORMANCE_TS } from "./workflows.js";

/** The Python worker program of the suite (wmill.worker over the worker protocol). */
const PYTHON_PROGRAM = join(REPO, "sdk-python", "examples", "conformance.py");
const HAS_PYTHON = spawnSync("python3", ["--version"], { encoding: "utf8" }).status === 0;

/** What one standalone worker process of a target is started with. */
export interface WorkerEnv {
  /** The project folder (the working directory). */
  root: string;
  /** The server's API (`SLUICE_URL`). */
  url: string;
  /** A `worker`-scope token (`SLUICE_TOKEN`). */
  token: string;
  /** This process's name (`CONFORMANCE_WORKER`): the conformance workflows write it into step values and output. */
  name: string;
  /** Lease length (`CONFORMANCE_LEASE_MS`). */
  leaseMs: number;
}

/** A command line (run in the project folder). */
export interface WorkerCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** A target, built and ready to run. */
export interface PreparedTarget {
  /** Files of a `sluice dev` project whose worker is this target (the built-in: workflow modules; an SDK: sluice.json `workers`). */
  devFiles: Record<string, string>;
  /** Output of `sluice dev` once the target's worker runs. */
  devReady: RegExp;
  /** Files of a `sluice server --workers none` project that standalone workers of this target serve. */
  serverFiles: Record<string, string>;
  /** One standalone worker process against that server. */
  worker(env: WorkerEnv): WorkerCommand;
}

/** A worker implementation under test. */
export interface ConformanceTarget {
  name: string;
  /** Why it cannot run here (its toolchain is missing), or null. */
  skip: string | null;
  /** Scenario titles this target cannot run yet, with the reason (shown as a skipped test). */
  unsupported: Record<string, string>;
  /** Builds once what the target needs (e.g. compiles the worker program). */
  prepare(): PreparedTarget;
}

const SLUICE_BIN = join(REPO, "bin", "sluice.js");
const contractEnv = (e: WorkerEnv): Record<string, string> => ({
  SLUICE_URL: e.url,
  SLUICE_TOKEN: e.token,
  CONFORMANCE_WORKER: e.name,
  CONFORMANCE_LEASE_MS: String(e.leaseMs),
});

/** Every target, the built-in worker first. */
export const TARGETS: ConformanceTarget[] = [
  {
    name: "built-in worker",
    skip: null,
    unsupported: {
      // Child runs of the built-in worker are workflows as code (`task()`), tested in test/wac/.
      "child runs: each child's result or error resolves the parent's step":
        "defineWorkflow (seed 002's TypeScript API) has no child runs",
      "parallel children: started in one park, the parent resumes once all have finished":
        "defineWorkflow (seed 002's TypeScript API) has no child runs",
      "task children: functions of the same workflow run as child runs with their options; a failed task raises a stable TaskError; a timeout fails the task":
        "defineWorkflow (seed 002's TypeScript API) has no task children (workflows as code's task(): test/wac/)",
      "a fan-out of 550 task children over the SDK's park budget: written in parts, one suspend, every result back":
        "defineWorkflow (seed 002's TypeScript API) has no child runs (a WAC gather is one suspend in-process: test/wac/)",
      // Approvals of the built-in worker are workflows as code (`waitForApproval()`), tested in test/wac/.
      "an approval parks the run until `sluice approve` decides it; the decision is the call's value":
        "defineWorkflow (seed 002's TypeScript API) has no approvals",
      "resume links of the next approval, made for an approver, approve it with a plain POST":
        "defineWorkflow (seed 002's TypeScript API) has no approvals (getResumeUrls of workflows as code: test/wac/)",
    },
    prepare: () => ({
      devFiles: { "workflows/conf.ts": CONFORMANCE_TS },
      devReady: /UI: http/,
      serverFiles: { "workflows/conf.ts": CONFORMANCE_TS },
      // `sluice worker` reads the project's database directly; the URL and token are unused.
      worker: (e) => ({
        command: process.execPath,
        args: [SLUICE_BIN, "worker", "--lease", `${e.leaseMs}ms`],
        env: contractEnv(e),
      }),
    }),
  },
  {
    name: "Go SDK",
    skip: HAS_GO ? null : SKIP_REASON,
    unsupported: {},
    prepare: () => {
      const bin = join(tempDir("sluice-conf-"), "conformance");
      mkdirSync(GO_ENV.GOCACHE!, { recursive: true });
      const build = spawnSync("go", ["build", "-o", bin, "./examples/conformance"], {
        cwd: SDK,
        env: { ...process.env, ...GO_ENV },
        encoding: "utf8",
      });
      if (build.status !== 0) throw new Error(`go build failed: ${build.stderr}`);
      return {
        devFiles: { "sluice.json": JSON.stringify({ workers: [{ command: `exec ${bin}`, group: "go" }] }) },
        devReady: /\[go\] .*conformance worker: ready/,
        serverFiles: {},
        worker: (e) => ({ command: bin, args: [], env: contractEnv(e) }),
      };
    },
  },
  {
    name: "Python SDK",
    skip: HAS_PYTHON ? null : "(skipped: `python3` is not installed; apt-get install python3)",
    unsupported: {},
    prepare: () => ({
      // No PYTHONPATH here: `sluice dev` puts Sluice's Python SDK on it for `workers` commands.
      devFiles: {
        "sluice.json": JSON.stringify({
          workers: [{ command: `exec python3 ${PYTHON_PROGRAM}`, group: "python" }],
        }),
      },
      devReady: /\[python\] .*conformance worker: ready/,
      serverFiles: {},
      // Standalone: the SDK on PYTHONPATH, as `sluice dev` sets it for `workers` commands.
      worker: (e) => ({
        command: "python3",
        args: [PYTHON_PROGRAM],
        env: { ...contractEnv(e), PYTHONPATH: join(REPO, "sdk-python"), PYTHONUNBUFFERED: "1" },
      }),
    }),
  },
];
