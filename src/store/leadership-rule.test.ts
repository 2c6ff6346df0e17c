import { describe, expect, it } from "vitest";
import { leadAction, type LeadershipRow } from "./leadership-rule.js";

const now = 1_800_000_000_000;
const HOUR = 3_600_000;
const TTL = 5_000;
const held = (over: Partial<LeadershipRow>): LeadershipRow => ({
  holder: "b",
  expiresAt: now + TTL,
  ttlMs: TTL,
  noticedAt: null,
  ...over,
});

describe("leadAction", () => {
  it("takes a free name, renews its own, and takes one expired on this clock", () => {
    expect(leadAction(null, "a", now)).toBe("take");
    expect(leadAction(held({ holder: "a", expiresAt: now + HOUR }), "a", now)).toBe("take");
    expect(leadAction(held({ expiresAt: now - 1 }), "a", now)).toBe("take");
  });

  it("leaves another holder's live leadership, up to its length plus the tolerance", () => {
    expect(leadAction(held({}), "a", now)).toBe("leave");
    expect(leadAction(held({ expiresAt: now + TTL + 60_000 }), "a", now)).toBe("leave");
  });

  it("notes a leadership written ahead, and takes it when still noted a whole length later", () => {
    expect(leadAction(held({ expiresAt: now + HOUR }), "a", now)).toEqual({ notice: now });
    expect(leadAction(held({ expiresAt: now + HOUR, noticedAt: now - TTL + 1 }), "a", now)).toBe("leave");
    expect(leadAction(held({ expiresAt: now + HOUR, noticedAt: now - TTL }), "a", now)).toBe("take");
  });

  it("notes again a note from a clock ahead, and leaves rows without a recorded length", () => {
    expect(leadAction(held({ expiresAt: now + HOUR, noticedAt: now + HOUR }), "a", now)).toEqual({ notice: now });
    expect(leadAction(held({ expiresAt: now + HOUR, ttlMs: null }), "a", now)).toBe("leave");
  });
});
