import { describe, expect, it } from "vitest";
import { parseApprovalAnswer } from "./approval-answer.js";

describe("parseApprovalAnswer", () => {
  it("reads yes, no and a JSON form value", () => {
    for (const y of ["y", "YES", " approve "]) expect(parseApprovalAnswer(y)).toEqual({ approve: true });
    for (const n of ["n", "No", "reject"]) expect(parseApprovalAnswer(n)).toEqual({ approve: false });
    expect(parseApprovalAnswer('{"amount": 3}')).toEqual({ approve: true, value: { amount: 3 } });
  });

  it("is null for anything else, so the question is asked again", () => {
    for (const x of ["", "maybe", "{not json", "[1]", "{"]) expect(parseApprovalAnswer(x)).toBeNull();
  });
});
