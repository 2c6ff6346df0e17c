import { describe, expect, it } from "vitest";
import { expectedFields, payloadSkeleton, unfilledRequired } from "./payload-skeleton";

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

  it("refuses a payload whose required field is still null or missing, naming it", () => {
    const params = { names: ["orderId", "note"], required: ["orderId"] };
    expect(unfilledRequired({ orderId: null }, params)).toBe(
      'orderId is required: replace its null with a value (e.g. {"orderId": "…"}) before starting the run.',
    );
    expect(unfilledRequired({ note: "x" }, params)).toBe(
      'orderId is required: add it with a value (e.g. {"orderId": "…"}) before starting the run.',
    );
    expect(unfilledRequired({ orderId: "ord_1", note: null }, params)).toBeNull();
    expect(unfilledRequired({ orderId: 0 }, params)).toBeNull();
    expect(unfilledRequired([], params)).toBe("The payload must be a JSON object with orderId.");
    const two = { names: ["baseUrl", "pageCount"], required: ["baseUrl", "pageCount"] };
    expect(unfilledRequired({ baseUrl: null }, two)).toBe(
      "Required fields need values before the run starts: baseUrl still null; pageCount missing.",
    );
    expect(unfilledRequired({}, null)).toBeNull();
    expect(unfilledRequired("anything", { names: ["a"], required: [] })).toBeNull();
  });
});
