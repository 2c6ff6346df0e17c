/**
 * Pure rules of the supervised worker commands (`sluice.json` `workers`, see
 * `worker-command.ts`): how long to wait before starting a command that exited again, how
 * an exit is described to the operator, whether a command is healthy (`/api/ready`), and when
 * `sh -c` may `exec` the command so that the pid Sluice prints is the worker's own.
 */
import { constants } from "node:os";

/** Restart delays: the first, doubling while the command keeps dying, up to the last. */
export const RESTART_FIRST_MS = 1_000;
/** The longest wait before a restart. */
export const RESTART_MAX_MS = 30_000;
/** A command that stayed up this long is healthy again: its next restart waits {@link RESTART_FIRST_MS}. */
export const RESTART_STABLE_MS = 60_000;

/**
 * The wait before starting a command again after an exit.
 * @param previousMs the wait before its last start (null: it was never restarted)
 * @param upMs how long its last process ran
 */
export function nextRestartDelay(previousMs: number | null, upMs: number): number {
  if (previousMs === null || upMs >= RESTART_STABLE_MS) return RESTART_FIRST_MS;
  return Math.min(RESTART_MAX_MS, previousMs * 2);
}

/** A process of a command that exited before it had stayed up {@link RESTART_STABLE_MS}. */
export interface QuickExit {
  /** How it ended ({@link describeExit}). */
  cause: string;
  /** How long it ran, ms. */
  upMs: number;
  /** Its last line of output, if any (a build error, a stack trace's message…). */
  lastLine: string | null;
  /** How many processes in a row exited this quickly (this one included). */
  streak: number;
}

/** Quick exits in a row that make a command unhealthy: one crash is restarted and not reported. */
const UNHEALTHY_STREAK = 2;

/** Whether a command is healthy, for `/api/ready`'s `workers` check. */
export interface CommandHealth {
  label: string;
  ok: boolean;
  detail: string;
}

/**
 * A command is unhealthy once {@link UNHEALTHY_STREAK} processes in a row exited before staying up
 * {@link RESTART_STABLE_MS} (it keeps crashing at startup or soon after: a build error, a missing
 * binary, a bad setting) until a later process of it has stayed up that long, the rule that resets
 * its restart delay. A single crash is only restarted.
 * @param lastQuickExit its latest quick exit, null when none since it was last stable
 * @param upMs how long its current process has run, null when none runs (a restart is pending)
 */
export function commandHealth(
  label: string,
  command: string,
  lastQuickExit: QuickExit | null,
  upMs: number | null,
): CommandHealth {
  const name = `worker command [${label}] (${command})`;
  const stable = upMs !== null && upMs >= RESTART_STABLE_MS;
  if (lastQuickExit === null || lastQuickExit.streak < UNHEALTHY_STREAK || stable)
    return { label, ok: true, detail: upMs === null ? `${name} not running` : `${name} running` };
  const output = lastQuickExit.lastLine ? `, last output ${JSON.stringify(lastQuickExit.lastLine)}` : "";
  const now = upMs === null ? "a restart is pending" : `restarted ${Math.round(upMs / 1000)} s ago`;
  return {
    label,
    ok: false,
    detail: `${name} keeps exiting: ${lastQuickExit.streak} times in a row, the last after ${(lastQuickExit.upMs / 1000).toFixed(1)} s (${lastQuickExit.cause}${output}); ${now}, healthy again once a process stays up ${RESTART_STABLE_MS / 1000} s (see the server's log)`,
  };
}

/**
 * How a command's process ended, for the log: `code 0`, `killed by SIGKILL`, and for the
 * codes a shell reports for its child (`sh -c` exits 128 + n when its command dies of
 * signal n; 127: not found; 126: not executable) what they usually mean.
 */
export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal) return `killed by ${signal}`;
  if (code === null) return "exit status unknown";
  if (code === 127) return "code 127: command not found";
  if (code === 126) return "code 126: not executable";
  if (code > 128 && code <= 128 + 64) {
    const name = Object.entries(constants.signals).find(([, n]) => n === code - 128)?.[0];
    if (name) return `code ${code}: its process was killed by ${name}`;
  }
  return `code ${code}`;
}

/** Shell words after which `exec` would fail or change the meaning (keywords, built-ins without a program). */
const NOT_A_PROGRAM = new Set(
  (
    "! { } [[ ]] case do done elif else esac fi for function if in select then time until while " +
    ". : alias bg break builtin cd command continue eval exec exit export fg getopts hash jobs local read " +
    "readonly return set shift source times trap type typeset ulimit umask unalias unset wait"
  ).split(" "),
);

/** Characters that make a command line more than one simple command (lists, pipes, subshells, substitutions, redirections, comments). */
const COMPOUND = /[;&|()<>`\\\n#{}]/;

/** Leading `NAME=value` assignments without quotes (kept before `exec`, which passes them to the program). */
const ASSIGNMENTS = /^\s*(?:[A-Za-z_][A-Za-z0-9_]*=[^\s'"]*\s+)*/;

/**
 * The command line with `exec` in front of its program, so that `sh -c` is replaced by the
 * worker and its pid is the worker's (`A=1 ./worker` → `A=1 exec ./worker`); null when that
 * is not safe: a line with pipes, `&&`, `;`, subshells, redirections or substitutions, a
 * program that is a shell keyword or built-in, or quoted assignments. A line that already
 * `exec`s a program is returned as it is.
 */
export function execCommandLine(command: string): string | null {
  if (COMPOUND.test(command)) return null;
  const prefix = ASSIGNMENTS.exec(command)![0];
  const rest = command.slice(prefix.length);
  const [program = "", next = ""] = rest.trim().split(/\s+/, 2);
  if (program === "exec") return next === "" ? null : command;
  if (program === "" || program.includes("=") || NOT_A_PROGRAM.has(program)) return null;
  return `${prefix}exec ${rest}`;
}
