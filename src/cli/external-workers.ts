/**
 * Worker commands of `sluice.json` `workers` (issue 12): processes in other languages
 * (the Go SDK) that `sluice dev` and `sluice server` start beside the HTTP API. Each gets
 * `SLUICE_URL` and, when the API requires tokens, `SLUICE_TOKEN` (a `worker` token created
 * for this server and revoked when it stops). Their output is shown line by line with a
 * `[group]` prefix. On stop they get SIGTERM (they drain), then SIGKILL after `drainMs`.
 * Python workers find Sluice's SDK (`from wmill.worker import …`): its folder is appended
 * to `PYTHONPATH`, and their output is unbuffered so lines show as they are printed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { delimiter, join } from "node:path";
import { ApiTokens } from "../http/auth/tokens.js";
import { pythonSdkDir } from "../loader/python/sdk-path.js";
import type { Store } from "../store/types.js";
import type { ExternalWorkerConfig } from "./config.js";

/** What {@link startExternalWorkers} needs. */
export interface ExternalWorkerOptions {
  entries: readonly ExternalWorkerConfig[];
  root: string;
  /** The API's URL, given to the workers as SLUICE_URL. */
  url: string;
  /** The store whose tokens the API checks; null when the API needs no token. */
  tokenStore: Store | null;
  env: NodeJS.ProcessEnv;
  write: (text: string) => void;
}

/** Running worker commands. */
export interface ExternalWorkers {
  /** SIGTERM to each (its process group), SIGKILL after `drainMs`; revokes the token. */
  stop(drainMs: number): Promise<void>;
}

/** Starts the worker commands (none: a no-op handle). */
export async function startExternalWorkers(options: ExternalWorkerOptions): Promise<ExternalWorkers> {
  const { entries, write } = options;
  if (entries.length === 0) return { stop: async () => {} };
  let tokenId: string | null = null;
  const env: NodeJS.ProcessEnv = { ...options.env, SLUICE_URL: options.url, ...pythonEnv(options.env) };
  if (options.tokenStore) {
    const created = await new ApiTokens(options.tokenStore).create({ name: `workers-${process.pid}`, scope: "worker" });
    tokenId = created.record.id;
    env.SLUICE_TOKEN = created.token;
  }
  const procs: ChildProcess[] = entries.map((entry, i) => {
    const label = entry.group ?? `worker${i + 1}`;
    // Its own process group, so a stop reaches `go run`'s child too.
    const proc = spawn("sh", ["-c", entry.command], {
      cwd: join(options.root, entry.dir ?? "."),
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const prefix = (chunk: Buffer, rest: { text: string }) => {
      rest.text += chunk.toString("utf8");
      const lines = rest.text.split("\n");
      rest.text = lines.pop() ?? "";
      for (const line of lines) write(`[${label}] ${line}\n`);
    };
    const out = { text: "" };
    const err = { text: "" };
    proc.stdout!.on("data", (d: Buffer) => prefix(d, out));
    proc.stderr!.on("data", (d: Buffer) => prefix(d, err));
    proc.on("exit", (code, signal) => write(`[${label}] worker command exited (${signal ?? `code ${code}`})\n`));
    proc.on("error", (e) => write(`[${label}] could not start ${JSON.stringify(entry.command)}: ${e.message}\n`));
    write(`worker command [${label}]: ${entry.command} (pid ${proc.pid})\n`);
    return proc;
  });
  return {
    async stop(drainMs) {
      const running = procs.filter((p) => p.exitCode === null && p.signalCode === null && p.pid);
      const exited = running.map((p) => new Promise((r) => p.once("exit", r)));
      for (const p of running) signalGroup(p, "SIGTERM");
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise((r) => (timer = setTimeout(r, drainMs)));
      await Promise.race([Promise.all(exited), timeout]);
      clearTimeout(timer);
      for (const p of running) if (p.exitCode === null && p.signalCode === null) signalGroup(p, "SIGKILL");
      if (tokenId && options.tokenStore) await new ApiTokens(options.tokenStore).revoke(tokenId).catch(() => false);
    },
  };
}

function signalGroup(p: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-p.pid!, signal);
  } catch {
    p.kill(signal);
  }
}

/** `PYTHONPATH` with Sluice's Python SDK appended (the user's entries win), and unbuffered output. */
function pythonEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  let sdk: string;
  try {
    sdk = pythonSdkDir();
  } catch {
    return {}; // an installation without the Python SDK: Python workers bring their own
  }
  const path = [env.PYTHONPATH, sdk].filter((p) => p).join(delimiter);
  return { PYTHONPATH: path, PYTHONUNBUFFERED: env.PYTHONUNBUFFERED ?? "1" };
}
