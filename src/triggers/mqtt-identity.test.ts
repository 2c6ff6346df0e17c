import { describe, expect, it } from "vitest";
import { decodeInFlight, decodeSeq, type InFlight, mqttIdentity, numberMessage } from "./mqtt-identity.js";

function counter(start = 0) {
  let n = start;
  return () => n++;
}

describe("numberMessage (MQTT receive sequence)", () => {
  it("gives each first delivery a fresh number and a record to store, identical payloads included", () => {
    const next = counter(10);
    const a = numberMessage({ packetId: 7, dup: false, digest: "d" }, null, next);
    const b = numberMessage({ packetId: 8, dup: false, digest: "d" }, null, next);
    expect(a).toEqual({ seq: 10, record: { seq: 10, digest: "d" } });
    expect(b).toEqual({ seq: 11, record: { seq: 11, digest: "d" } });
  });

  it("a resend (dup) of a recorded message keeps its number and writes nothing", () => {
    const stored: InFlight = { seq: 4, digest: "d" };
    expect(numberMessage({ packetId: 7, dup: true, digest: "d" }, stored, counter(99))).toEqual({
      seq: 4,
      record: null,
    });
  });

  it("a first delivery reusing a packet id ignores the old record", () => {
    const stored: InFlight = { seq: 4, digest: "d" };
    expect(numberMessage({ packetId: 7, dup: false, digest: "d" }, stored, counter(5))).toEqual({
      seq: 5,
      record: { seq: 5, digest: "d" },
    });
  });

  it("a dup whose record is another message's (or missing) is a new message", () => {
    expect(numberMessage({ packetId: 7, dup: true, digest: "e" }, { seq: 4, digest: "d" }, counter(5)).seq).toBe(5);
    expect(numberMessage({ packetId: 7, dup: true, digest: "e" }, null, counter(6)).seq).toBe(6);
  });

  it("QoS 0 (no packet id) is never resent: a number, no record", () => {
    expect(numberMessage({ dup: false, digest: "d" }, null, counter(3))).toEqual({ seq: 3, record: null });
  });

  it("decodes stored state and names identities by epoch and number", () => {
    expect(decodeInFlight('{"seq":3,"digest":"x"}')).toEqual({ seq: 3, digest: "x" });
    expect(decodeInFlight("nope")).toBeNull();
    expect(decodeInFlight(null)).toBeNull();
    expect(decodeSeq('{"epoch":"e1","next":2000}')).toEqual({ epoch: "e1", next: 2000 });
    expect(decodeSeq('{"epoch":"e1","next":"x"}')).toBeNull();
    expect(mqttIdentity("e1", 12)).toBe("mqtt:e1:12");
  });
});
