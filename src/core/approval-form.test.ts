import { describe, expect, it } from "vitest";
import { normaliseForm, validateFormValue } from "./approval-form.js";

describe("approval forms", () => {
  it("accepts fields as keys or a full schema with required and order", () => {
    const direct = normaliseForm({
      reason: { type: "string" },
      environment: { type: "string", enum: ["staging", "production"] },
    })!;
    expect(direct.order).toEqual(["reason", "environment"]);
    expect(direct.required).toEqual([]);
    const schema = normaliseForm({
      type: "object",
      properties: { reason: { type: "string" }, environment: { type: "string", enum: ["staging", "production"] } },
      required: ["reason"],
      order: ["environment", "reason"],
    })!;
    expect(schema.order).toEqual(["environment", "reason"]);
    expect(schema.required).toEqual(["reason"]);
    expect(normaliseForm(undefined)).toBeNull();
  });
  it("validates required fields, enums and types", () => {
    const schema = normaliseForm({
      type: "object",
      properties: { reason: { type: "string" }, priority: { type: "number", enum: [1, 2, 3] } },
      required: ["reason"],
    });
    expect(validateFormValue(schema, { reason: "Urgent fix", priority: 1 })).toEqual([]);
    expect(validateFormValue(schema, { priority: 4, extra: true })).toEqual([
      '"reason" is required',
      '"priority" must be one of 1, 2, 3',
      '"extra" is not a field of this form',
    ]);
    expect(validateFormValue(schema, { reason: 5 })).toEqual(['"reason" must be a string']);
    expect(validateFormValue(null, { anything: 1 })).toEqual([]);
  });
});
