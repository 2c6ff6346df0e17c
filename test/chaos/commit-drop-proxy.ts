/**
 * A TCP proxy in front of Postgres that loses the answer of a commit: it reads the server's side
 * of the wire protocol (a type byte and a 4-byte length per message, from the first byte since
 * the clients here do not ask for TLS) and, while armed, when the server sends `CommandComplete`
 * with the tag `COMMIT` it forwards everything before that message, then closes both sides. The
 * server has committed; the client only sees its connection drop and cannot tell.
 */
import { createServer, type Socket, connect } from "node:net";

/** A running proxy. */
export interface CommitDropProxy {
  port: number;
  /** Commit answers dropped so far. */
  dropped(): number;
  /** Drops the next `n` commit answers (on any connection). */
  arm(n: number): void;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 (a free port) to `host:port`. */
export function startCommitDropProxy(host: string, port: number): Promise<CommitDropProxy> {
  let armed = 0;
  let dropped = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, host);
    sockets.add(client).add(upstream);
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", closeBoth).on("close", closeBoth);
    upstream.on("error", closeBoth).on("close", closeBoth);
    client.pipe(upstream);
    let pending: Buffer = Buffer.alloc(0);
    upstream.on("data", (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      let at = 0;
      while (pending.length - at >= 5) {
        const len = pending.readUInt32BE(at + 1);
        if (pending.length - at < 1 + len) break;
        if (armed > 0 && pending[at] === 0x43 /* C */ && isCommitTag(pending, at + 5, at + 1 + len)) {
          armed--;
          dropped++;
          client.write(pending.subarray(0, at), () => closeBoth());
          pending = Buffer.alloc(0);
          return;
        }
        at += 1 + len;
      }
      if (at > 0) client.write(pending.subarray(0, at));
      pending = pending.subarray(at);
    });
  });
  return new Promise((resolve, reject) => {
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port: own } = server.address() as { port: number };
      resolve({
        port: own,
        dropped: () => dropped,
        arm: (n) => (armed += n),
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

/** Whether the NUL-terminated command tag in `buf[from, to)` is `COMMIT`. */
function isCommitTag(buf: Buffer, from: number, to: number): boolean {
  return buf.toString("latin1", from, to).replace(/\0$/, "") === "COMMIT";
}
