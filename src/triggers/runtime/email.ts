/**
 * The email consumer (`smtp-server`, `mailparser`): the server that consumes the trigger
 * listens for SMTP. Each mail is parsed, its attachments stored in the object store
 * (`email/<trigger>/<digest of the mail>/<n>-<file name>`, so a resent mail rewrites the same
 * objects), and its run enqueued; only then is the DATA command answered `250`. A failure
 * answers `451` (try again later) and a crash drops the connection: the sending server keeps
 * the mail and retries, and the mail's Message-ID (or its digest) finds the run already made.
 *
 * With a certificate (`tlsCertFile`, `tlsKeyFile`) the listener offers STARTTLS and accepts
 * AUTH only on the encrypted connection; `requireTls` also refuses mail sent in clear text.
 * The password of AUTH is read from the environment variable `passwordEnv` names.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { SMTPServer as SMTPServerType } from "smtp-server";
import { TriggerError } from "../errors.js";
import type { EmailOptions } from "../kinds.js";
import type { Consumer, ConsumerContext } from "./consumer.js";

function accepted(to: readonly string[] | undefined, address: string): boolean {
  if (!to) return true;
  const a = address.toLowerCase();
  return to.some((t) => (t.startsWith("@") ? a.endsWith(t) : a === t));
}

function safeName(name: string | undefined, n: number): string {
  const clean = (name ?? "").replace(/[^\w .()-]/g, "_").replace(/^[.\s]+/, "");
  return `${n}-${clean || "attachment"}`;
}

function addresses(v: unknown): string[] {
  const list = Array.isArray(v) ? v : v ? [v] : [];
  return list.flatMap((x: { value?: Array<{ address?: string }> }) => (x.value ?? []).map((a) => a.address ?? ""));
}

/** Reads the STARTTLS certificate and key. @throws TriggerError `TRIGGER_CONSUMER_FAILED` naming the file */
function readTls(cx: ConsumerContext, tls: NonNullable<EmailOptions["tls"]>): { cert: Buffer; key: Buffer } {
  const read = (file: string, what: string) => {
    const path = isAbsolute(file) ? file : resolve(cx.root ?? process.cwd(), file);
    try {
      return readFileSync(path);
    } catch (err) {
      throw new TriggerError(
        "TRIGGER_CONSUMER_FAILED",
        `${cx.spec.id}: cannot read the STARTTLS ${what} ${path} (${(err as Error).message}); check "${what === "certificate" ? "tlsCertFile" : "tlsKeyFile"}"`,
        { cause: err },
      );
    }
  };
  return { cert: read(tls.certFile, "certificate"), key: read(tls.keyFile, "key") };
}

/** The SMTP commands switched off: AUTH without a user, STARTTLS without a certificate. */
function disabled(o: EmailOptions): string[] {
  return [...(o.username === undefined ? ["AUTH"] : []), ...(o.tls === undefined ? ["STARTTLS"] : [])];
}

/** Starts an SMTP listener. @throws TriggerError `TRIGGER_CONSUMER_FAILED` (port taken, certificate unreadable, …) */
export async function startEmail(cx: ConsumerContext): Promise<Consumer> {
  const o = cx.spec.options as EmailOptions;
  const tls = o.tls ? readTls(cx, o.tls) : undefined;
  if (o.passwordEnv !== undefined && !cx.env[o.passwordEnv])
    throw new TriggerError(
      "TRIGGER_CONSUMER_FAILED",
      `${cx.spec.id}: the environment variable ${o.passwordEnv} (the SMTP AUTH password) is not set`,
    );
  const { SMTPServer } = await import("smtp-server");
  const { simpleParser } = await import("mailparser");
  const password = o.passwordEnv ? cx.env[o.passwordEnv] : undefined;
  const server: SMTPServerType = new SMTPServer({
    authOptional: o.username === undefined,
    // Without a certificate there is no encrypted channel to wait for (loopback, a TLS relay in front).
    allowInsecureAuth: tls === undefined,
    disabledCommands: disabled(o),
    ...(tls && { cert: tls.cert, key: tls.key }),
    size: o.maxBytes,
    logger: false,
    onMailFrom(_address, session, done) {
      if (o.requireTls && !session.secure)
        return done(Object.assign(new Error("Must issue a STARTTLS command first"), { responseCode: 530 }));
      done();
    },
    onAuth(auth, _session, done) {
      if (auth.username === o.username && password !== undefined && auth.password === password)
        return done(null, { user: auth.username });
      done(new Error("invalid username or password"));
    },
    onRcptTo(address, _session, done) {
      if (accepted(o.to, address.address)) return done();
      done(new Error(`${address.address} is not a recipient of this trigger`));
    },
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        void (async () => {
          const raw = Buffer.concat(chunks);
          if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded)
            throw Object.assign(new Error(`the mail is larger than ${o.maxBytes} bytes`), { responseCode: 552 });
          const mail = await simpleParser(raw);
          const digest = createHash("sha256").update(raw).digest("hex");
          const attachments = [];
          let n = 0;
          for (const a of mail.attachments) {
            const objects = await cx.objects?.();
            if (!objects) throw new Error("attachments need the project's object store");
            const key = `email/${cx.spec.id.replace(/[^\w.-]/g, "_")}/${digest.slice(0, 16)}/${safeName(a.filename, ++n)}`;
            await objects.put(key, a.content, a.contentType);
            attachments.push({
              filename: a.filename ?? null,
              contentType: a.contentType,
              size: a.size,
              s3: `s3://${key}`,
            });
          }
          const body = {
            messageId: mail.messageId ?? null,
            from: addresses(mail.from)[0] ?? (session.envelope.mailFrom ? session.envelope.mailFrom.address : null),
            to: addresses(mail.to),
            cc: addresses(mail.cc),
            envelopeTo: session.envelope.rcptTo.map((r) => r.address),
            subject: mail.subject ?? "",
            date: mail.date?.toISOString() ?? null,
            text: mail.text ?? "",
            ...(typeof mail.html === "string" && { html: mail.html }),
            attachments,
          };
          await cx.deliver({
            identity: mail.messageId ? `email:${mail.messageId}` : `email-sha256:${digest}`,
            bytes: Buffer.from(JSON.stringify(body)),
          });
        })().then(
          () => done(),
          (err: Error & { responseCode?: number }) => {
            // 451: a temporary failure, the sender keeps the mail and tries again.
            done(
              Object.assign(new Error(`not accepted now: ${err.message}`), { responseCode: err.responseCode ?? 451 }),
            );
          },
        );
      });
    },
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(o.port, o.host, () => resolve());
    });
  } catch (err) {
    throw new TriggerError(
      "TRIGGER_CONSUMER_FAILED",
      `SMTP listener on ${o.host}:${o.port}: ${(err as Error).message}; pick a free port for the trigger`,
      { cause: err },
    );
  }
  server.on("error", (err) => cx.fail(err));
  return {
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
