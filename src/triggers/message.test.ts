import { describe, expect, it } from "vitest";
import { messageRun, runIdFor } from "./message.js";
import { parseConfigTriggers } from "./spec.js";

const spec = (extra: Record<string, unknown> = {}) =>
  parseConfigTriggers([{ name: "t", kind: "mqtt", target: "w", url: "mqtt://h", topic: "#", ...extra }])[0]!;
const bytes = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v));

describe("message → run", () => {
  it("makes the JSON body the payload, and keeps text and non-objects under payload", () => {
    expect(messageRun(spec(), { bytes: bytes({ n: 1 }), topic: "a" }).args).toEqual({ n: 1 });
    expect(messageRun(spec(), { bytes: bytes("plain text"), topic: "a" }).args).toEqual({ payload: "plain text" });
    expect(messageRun(spec(), { bytes: bytes([1, 2]), topic: "a" }).args).toEqual({ payload: [1, 2] });
    expect(messageRun(spec({ format: "base64" }), { bytes: bytes("hi"), topic: "a" }).args).toEqual({
      payload: "aGk=",
    });
    expect(() => messageRun(spec({ format: "json" }), { bytes: bytes("{"), topic: "a" })).toThrow(/not JSON/);
  });

  it("maps arguments from the envelope", () => {
    const run = messageRun(spec({ args: { order: "$.body.order", topic: "$.topic", missing: "$.body.x" } }), {
      bytes: bytes({ order: { id: 4 } }),
      topic: "orders/eu",
    });
    expect(run.args).toEqual({ order: { id: 4 }, topic: "orders/eu", missing: null });
    expect(run.envelope).toEqual({ trigger: "t", kind: "mqtt", body: { order: { id: 4 } }, topic: "orders/eu" });
  });

  it("derives the run id from the identity: the same message twice gives the same id, another one another", () => {
    const a = messageRun(spec(), { bytes: bytes({ n: 1 }), topic: "a" });
    expect(messageRun(spec(), { bytes: bytes({ n: 1 }), topic: "a" }).runId).toBe(a.runId);
    expect(messageRun(spec(), { bytes: bytes({ n: 1 }), topic: "b" }).runId).not.toBe(a.runId);
    expect(messageRun(spec(), { bytes: bytes({ n: 2 }), topic: "a" }).runId).not.toBe(a.runId);
    // A source identity (NATS stream sequence) wins over the content; idFrom wins over both.
    const seq = messageRun(spec(), { identity: "nats:S:7", bytes: bytes({ n: 1 }) });
    expect(seq.runId).toBe(runIdFor("t", "nats:S:7"));
    const byId = messageRun(spec({ idFrom: "$.body.id" }), { identity: "nats:S:8", bytes: bytes({ id: "x1" }) });
    expect(byId.identity).toBe("id:x1");
    expect(() => messageRun(spec({ idFrom: "$.body.id" }), { bytes: bytes({}) })).toThrow(
      /idFrom \$\.body\.id is missing/,
    );
    expect(a.runId).toMatch(/^trigger:t:[0-9a-f]{32}$/);
  });
});
