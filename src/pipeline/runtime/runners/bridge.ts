/**
 * The script bridge: how Python and Bash scripts reach Sluice. One Unix-domain socket per
 * host (in a private temporary folder, mode 0700), started on first use. A script gets
 * the socket path and a random per-run token in its environment; each request is one
 * JSON line `{"token", "op", "args"}` answered by one line `{"ok": true, "value"}` or
 * `{"ok": false, "error": {"code", "message"}}` (bytes travel as base64). The token
 * selects the run, so writes are recorded on the right run.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serializeError } from "../../../core/serde.js";
import { PipelineRuntimeError } from "../errors.js";
import type { PipelineRunContext } from "../run-context.js";
import { performAssetCall } from "../../../sdk/windmill/asset-calls.js";
import { RunAssetSdk } from "../sdk-host.js";
import { RUNNER_PY, WMILL_CLI } from "./python-sources.js";

/** A running bridge. */
export interface Bridge {
  /** The socket path. */
  readonly socket: string;
  /** Folder holding `runner.py` and `bin/wmill` (scripts import Sluice's Python SDK, `sdk-python/wmill`). */
  readonly dir: string;
  /** Makes `ctx` reachable with a new token; returns the token and a function that revokes it. */
  register(ctx: PipelineRunContext): { token: string; revoke: () => void };
}

const MAX_LINE = 256 * 1024 * 1024;
const bridges = new WeakMap<object, Promise<Bridge & { close(): Promise<void> }>>();

async function handle(ctx: PipelineRunContext, op: string, a: Record<string, unknown>): Promise<unknown> {
  return performAssetCall(new RunAssetSdk(ctx.assets, ctx), op, a);
}

function serve(tokens: Map<string, PipelineRunContext>, sock: Socket): void {
  let buf = "";
  sock.setEncoding("utf8");
  sock.on("error", () => sock.destroy());
  sock.on("data", (chunk: string) => {
    buf += chunk;
    if (buf.length > MAX_LINE) return void sock.destroy();
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      void (async () => {
        let reply: unknown;
        try {
          const req = JSON.parse(line) as { token?: unknown; op?: unknown; args?: Record<string, unknown> };
          const ctx = typeof req.token === "string" ? tokens.get(req.token) : undefined;
          if (!ctx)
            throw new PipelineRuntimeError(
              "BRIDGE_REQUEST_INVALID",
              "unknown or expired bridge token: the run this script belongs to is over",
            );
          reply = { ok: true, value: (await handle(ctx, String(req.op), req.args ?? {})) ?? null };
        } catch (err) {
          const e = serializeError(err);
          reply = { ok: false, error: { code: e.code ?? e.name, message: e.message } };
        }
        if (!sock.destroyed) sock.write(`${JSON.stringify(reply)}\n`);
      })();
    }
  });
}

async function start(): Promise<Bridge & { close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "sluice-bridge-"));
  chmodSync(dir, 0o700);
  mkdirSync(join(dir, "bin"), { recursive: true });
  writeFileSync(join(dir, "runner.py"), RUNNER_PY);
  writeFileSync(join(dir, "bin", "wmill"), WMILL_CLI, { mode: 0o755 });
  const socket = join(dir, "bridge.sock");
  const tokens = new Map<string, PipelineRunContext>();
  const server: Server = createServer((s) => serve(tokens, s));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socket, () => resolve());
  });
  server.unref();
  return {
    socket,
    dir,
    register(ctx) {
      const token = randomBytes(24).toString("hex");
      tokens.set(token, ctx);
      return { token, revoke: () => void tokens.delete(token) };
    },
    async close() {
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The bridge of `owner` (a pipeline host), started on first use. */
export function ensureBridge(owner: object): Promise<Bridge> {
  let b = bridges.get(owner);
  if (!b) {
    b = start();
    bridges.set(owner, b);
  }
  return b;
}

/** Stops the bridge of `owner`, if it was started. */
export async function stopBridge(owner: object): Promise<void> {
  const b = bridges.get(owner);
  if (!b) return;
  bridges.delete(owner);
  await (await b).close();
}
