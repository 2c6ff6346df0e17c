import { describe, expect, it } from "vitest";
import { expectedFields, payloadSkeleton } from "./payload-skeleton";

describe("payloadSkeleton", () => {
  it("names each required parameter with null to fill in, leaving optional ones to their defaults", () => {
    expect(
      JSON.parse(payloadSkeleton({ names: ["baseUrl", "pageCount", "limit"], required: ["baseUrl", "pageCount"] })),
    ).toEqual({
      baseUrl: null,
      pageCount: null,
    });
  });
  it("is {} without known parameters or without required ones", () => {
    expect(payloadSkeleton(null)).toBe("{}");
    expect(payloadSkeleton({ names: ["limit"], required: [] })).toBe("{}");
  });
});

describe("expectedFields", () => {
  it("lists every parameter, marking the required ones; null when Sluice cannot name them", () => {
    expect(expectedFields({ names: ["url", "limit"], required: ["url"] })).toBe("url (required), limit");
    expect(expectedFields({ names: [], required: [] })).toBe("none (it takes no parameters)");
    expect(expectedFields(null)).toBeNull();
  });
});
