/**
 * Email triggers: `sluice dev` listens for SMTP on a free loopback port; mail sent with a real
 * SMTP client (nodemailer) becomes a run whose payload has the mail's fields and its
 * attachments' s3:// paths (stored in the project's object store). A SIGKILL between the enqueue
 * and the `250` answer makes the send fail; the same mail sent again after the restart finds
 * its run (one run per mail). With a certificate (made here by openssl) the listener offers
 * STARTTLS, takes AUTH only on the encrypted connection and, with `requireTls`, no mail in clear.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import nodemailer from "nodemailer";
import { describe, expect, it } from "vitest";
import { freePort } from "../helpers/brokers.js";
import { makeProject } from "../helpers/project.js";
import { eventually } from "../helpers/tmp.js";
import { cliJson, runsOf, startDev } from "./project.js";

async function project(): Promise<{ root: string; port: number }> {
  const port = await freePort();
  const root = makeProject(
    {
      "sluice.json": JSON.stringify({
        triggers: [{ name: "inbox", kind: "email", target: "mail", port, to: ["orders@example.com", "@shop.test"] }],
      }),
      "workflows/mail.ts": `import { defineWorkflow } from "tako.sh";
export default defineWorkflow<{ subject: string; attachments: Array<{ s3: string }> }>("mail", {
  handler: async (p) => ({ subject: p.subject, files: p.attachments.length }),
});
`,
    },
    "sluice-email-",
  );
  return { root, port };
}

const transport = (port: number) =>
  nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true, connectionTimeout: 5000 });

describe("email triggers (smtp-server, sent with nodemailer)", () => {
  it("turns a mail into a run with its attachments stored as objects; refuses other recipients", async () => {
    const { root, port } = await project();
    const dev = await startDev(root);
    await dev.waitFor(/trigger inbox: consuming \(email\)/);
    const sent = await transport(port).sendMail({
      from: "alice@example.org",
      to: "orders@example.com",
      subject: "Order 42",
      text: "please ship",
      attachments: [{ filename: "order.csv", content: "id,qty\n42,3\n", contentType: "text/csv" }],
    });
    expect(sent.accepted).toEqual(["orders@example.com"]);
    const run = await eventually(async () => {
      const r = (await runsOf(root, "mail"))[0];
      return r?.status === "succeeded" ? r : null;
    }, 20_000);
    expect(run.payload).toMatchObject({
      messageId: sent.messageId,
      from: "alice@example.org",
      to: ["orders@example.com"],
      subject: "Order 42",
      text: "please ship",
      attachments: [
        {
          filename: "order.csv",
          contentType: "text/csv",
          size: 12,
          s3: expect.stringMatching(/^s3:\/\/email\/inbox\/[0-9a-f]{16}\/1-order\.csv$/),
        },
      ],
    });
    expect(run.result).toEqual({ subject: "Order 42", files: 1 });
    const key = run.payload.attachments[0].s3.slice("s3://".length);
    expect(readFileSync(join(root, ".sluice", "s3", key), "utf8")).toBe("id,qty\n42,3\n");
    await expect(
      transport(port).sendMail({ from: "a@example.org", to: "someone@else.test", subject: "x", text: "x" }),
    ).rejects.toThrow(/not a recipient of this trigger/);
    const listed = await cliJson(root, ["triggers", "--json"]);
    expect(listed[0]).toMatchObject({
      id: "inbox",
      kind: "email",
      status: "running",
      messages: 1,
      source: `smtp://127.0.0.1:${port} to orders@example.com, @shop.test`,
    });
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 60_000);

  it("a SIGKILL between enqueue and 250: the send fails, the same mail sent again finds its run", async () => {
    const { root, port } = await project();
    const first = await startDev(root, { SLUICE_TEST_CRASH_AT: "trigger-after-enqueue" });
    await first.waitFor(/trigger inbox: consuming \(email\)/);
    const mail = {
      from: "bob@example.org",
      to: "x@shop.test",
      subject: "Retry me",
      text: "once",
      messageId: "<retry-1@example.org>",
    };
    await expect(transport(port).sendMail(mail)).rejects.toThrow();
    expect(await first.exited).toBe("SIGKILL");
    const before = await runsOf(root, "mail");
    expect(before.map((r) => r.payload.messageId)).toEqual(["<retry-1@example.org>"]);
    const second = await startDev(root);
    await second.waitFor(/trigger inbox: consuming \(email\)/, 30_000);
    // What a sending server does after a failed transaction: send the same mail again.
    const again = await transport(port).sendMail(mail);
    expect(again.accepted).toEqual(["x@shop.test"]);
    const after = await runsOf(root, "mail");
    expect(after.map((r) => r.id)).toEqual([before[0]!.id]);
    second.proc.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  }, 90_000);

  it("STARTTLS with a self-signed certificate, AUTH from an environment variable, and no mail in clear text", async () => {
    const port = await freePort();
    const root = makeProject(
      {
        "sluice.json": JSON.stringify({
          triggers: [
            {
              name: "inbox",
              kind: "email",
              target: "mail",
              port,
              username: "sluice",
              passwordEnv: "INBOX_SMTP_PASSWORD",
              tlsCertFile: "certs/smtp.pem",
              tlsKeyFile: "certs/smtp-key.pem",
              requireTls: true,
            },
          ],
        }),
        "workflows/mail.ts": `import { defineWorkflow } from "tako.sh";
export default defineWorkflow<{ subject: string }>("mail", { handler: async (p) => ({ subject: p.subject }) });
`,
      },
      "sluice-email-tls-",
    );
    mkdirSync(join(root, "certs"));
    execFileSync("openssl", [
      "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
      "-keyout", join(root, "certs/smtp-key.pem"), "-out", join(root, "certs/smtp.pem"),
      "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
    ], { stdio: "ignore" }); // prettier-ignore
    const ca = readFileSync(join(root, "certs/smtp.pem"));
    const dev = await startDev(root, { INBOX_SMTP_PASSWORD: "s3cret" });
    await dev.waitFor(/trigger inbox: consuming \(email\)/);
    const mail = { from: "alice@example.org", to: "orders@example.com", subject: "Over TLS", text: "hi" };
    const secure = (pass: string) =>
      nodemailer.createTransport({
        host: "127.0.0.1",
        port,
        secure: false,
        requireTLS: true,
        // Verifies the server's certificate against the one made above: the session is our TLS.
        tls: { ca, servername: "localhost" },
        auth: { user: "sluice", pass },
        connectionTimeout: 5000,
      });

    const sent = await secure("s3cret").sendMail(mail);
    expect(sent.accepted).toEqual(["orders@example.com"]);
    const run = await eventually(async () => {
      const r = (await runsOf(root, "mail"))[0];
      return r?.status === "succeeded" ? r : null;
    }, 20_000);
    expect(run.result).toEqual({ subject: "Over TLS" });

    await expect(secure("wrong").sendMail({ ...mail, subject: "bad password" })).rejects.toMatchObject({
      responseCode: 535,
    });
    // In clear text: AUTH is refused before STARTTLS (no password on the wire) …
    const clear = (auth: boolean) =>
      nodemailer.createTransport({
        host: "127.0.0.1",
        port,
        secure: false,
        ignoreTLS: true,
        ...(auth && { auth: { user: "sluice", pass: "s3cret" } }),
        connectionTimeout: 5000,
      });
    await expect(clear(true).sendMail({ ...mail, subject: "clear auth" })).rejects.toMatchObject({ responseCode: 538 });
    // … and so is mail (requireTls).
    await expect(clear(false).sendMail({ ...mail, subject: "clear mail" })).rejects.toMatchObject({
      responseCode: 530,
    });
    // Encrypted but without AUTH: refused too.
    const anonymous = nodemailer.createTransport({
      host: "127.0.0.1",
      port,
      secure: false,
      requireTLS: true,
      tls: { ca, servername: "localhost" },
      connectionTimeout: 5000,
    });
    await expect(anonymous.sendMail({ ...mail, subject: "no auth" })).rejects.toMatchObject({ responseCode: 530 });
    expect((await runsOf(root, "mail")).map((r) => r.payload.subject)).toEqual(["Over TLS"]);
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 60_000);

  it("a certificate that cannot be read is the trigger's error, naming the file", async () => {
    const port = await freePort();
    const root = makeProject(
      {
        "sluice.json": JSON.stringify({
          triggers: [
            { name: "inbox", kind: "email", target: "mail", port, tlsCertFile: "nope.pem", tlsKeyFile: "nope-key.pem" },
          ],
        }),
        "workflows/mail.ts": `import { defineWorkflow } from "tako.sh";
export default defineWorkflow("mail", { handler: async () => 1 });
`,
      },
      "sluice-email-badtls-",
    );
    const dev = await startDev(root);
    await dev.waitFor(/trigger inbox: inbox: cannot read the STARTTLS certificate \S+nope\.pem .*check "tlsCertFile"/);
    const listed = await eventually(async () => {
      const t = (await cliJson(root, ["triggers", "--json"]))[0];
      return t?.status === "error" ? t : null;
    }, 10_000);
    expect(listed.lastError).toMatch(/cannot read the STARTTLS certificate/);
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 60_000);
});
