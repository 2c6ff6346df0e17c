/**
 * Email triggers: `sluice dev` listens for SMTP on a free loopback port; mail sent with a real
 * SMTP client (nodemailer) becomes a run whose payload has the mail's fields and its
 * attachments' s3:// paths (stored in the project's object store). A SIGKILL between the enqueue
 * and the `250` answer makes the send fail; the same mail sent again after the restart finds
 * its run (one run per mail).
 */
import { readFileSync } from "node:fs";
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
});
