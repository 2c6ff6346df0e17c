/**
 * An HTTP proxy between a real SDK worker and a real Sluice server that can fail or alter
 * the worker's log writes (`POST /api/worker/runs/{id}/logs`, and `logs` entries of
 * `POST /api/worker/batch`), and passes every other request through unchanged. Not a mock
 * of the server: it stands in for what cannot be made to happen on demand in front of a
 * real one (a reverse proxy's 502 for one request, a 500 for one write, a worker whose
 * clock reads ahead), so the SDKs' answers to those are tested against the real server.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** The body of one log write, as the worker sent it. */
export interface LogsBody {
  token: number;
  attempt?: number;
  lines: Array<{ level?: string; message: string; ts?: number; stepKey?: string }>;
}

/**
 * What to do with one log write: answer it without forwarding (`answer`), forward a changed
 * body (`body`), or forward it as it is (null).
 */
export type LogFault = { answer: { status: number; body: unknown } } | { body: LogsBody } | null;

/** A running proxy. */
export interface LogFaultProxy {
  url: string;
  /** The log writes seen so far (their bodies as the worker sent them). */
  logWrites: LogsBody[];
  close(): Promise<void>;
}

/** Starts a proxy to `target` on a loopback port; `fault` decides each log write. */
export async function startLogFaultProxy(target: string, fault: (body: LogsBody) => LogFault): Promise<LogFaultProxy> {
  const logWrites: LogsBody[] = [];
  const decide = (body: LogsBody): LogFault => {
    logWrites.push(structuredClone(body));
    return fault(body);
  };
  const server = createServer((req, res) => {
    void handle(req, res, target, decide).catch((err: unknown) => {
      res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "PROXY", message: String(err) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    logWrites,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  target: string,
  decide: (body: LogsBody) => LogFault,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  let raw = Buffer.concat(chunks).toString("utf8");
  const path = req.url ?? "/";
  const reply = (status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  if (req.method === "POST" && /^\/api\/worker\/runs\/[^/]+\/logs$/.test(path)) {
    const f = decide(JSON.parse(raw) as LogsBody);
    if (f && "answer" in f) return reply(f.answer.status, f.answer.body);
    if (f) raw = JSON.stringify(f.body);
  }
  // A batch: its failed log writes are taken out and answered here, in their places.
  const answered = new Map<number, { status: number; body: unknown }>();
  let forwarded: number[] | null = null;
  if (req.method === "POST" && path === "/api/worker/batch") {
    const batch = JSON.parse(raw) as { writes: Array<{ op: string; runId: string; body: unknown }> };
    forwarded = [];
    const writes = [];
    for (const [i, w] of batch.writes.entries()) {
      const f = w.op === "logs" ? decide(w.body as LogsBody) : null;
      if (f && "answer" in f) {
        answered.set(i, f.answer);
        continue;
      }
      writes.push(f ? { ...w, body: f.body } : w);
      forwarded.push(i);
    }
    if (writes.length === 0) return reply(200, { results: batch.writes.map((_, i) => answered.get(i)) });
    raw = JSON.stringify({ ...batch, writes });
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (typeof v === "string" && !["host", "content-length", "connection"].includes(k)) headers[k] = v;
  const upstream = await fetch(target + path, {
    method: req.method,
    headers,
    body: req.method === "GET" || req.method === "HEAD" ? undefined : raw,
  });
  const text = await upstream.text();
  if (forwarded && upstream.ok) {
    const { results } = JSON.parse(text) as { results: unknown[] };
    const all: unknown[] = [];
    forwarded.forEach((i, k) => (all[i] = results[k]));
    for (const [i, a] of answered) all[i] = a;
    return reply(upstream.status, { results: all });
  }
  res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json" });
  res.end(text);
}
