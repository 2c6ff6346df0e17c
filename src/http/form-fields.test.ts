import { describe, expect, it } from "vitest";
import { normaliseForm } from "../core/approval-form.js";
import { formFields, formValueFromInput } from "./form-fields.js";

const schema = normaliseForm({
  type: "object",
  properties: {
    reason: { type: "string", description: "Why?", title: "Reason" },
    environment: { type: "string", enum: ["staging", "production"], default: "staging" },
    priority: { type: "number", enum: [1, 2, 3] },
    count: { type: "integer" },
    ratio: { type: "number", default: 0.5 },
    notify: { type: "boolean", default: true },
    tags: { type: "array" },
  },
  required: ["reason"],
  order: ["environment", "reason"],
});

describe("formFields", () => {
  it("orders fields by `order`, then the rest, with controls, labels and initial values", () => {
    const fields = formFields(schema);
    expect(fields.map((f) => [f.name, f.control, f.required, f.initial])).toEqual([
      ["environment", "select", false, "0"],
      ["reason", "text", true, ""],
      ["priority", "select", false, ""],
      ["count", "integer", false, ""],
      ["ratio", "number", false, "0.5"],
      ["notify", "checkbox", false, "true"],
      ["tags", "json", false, ""],
    ]);
    expect(fields[1]).toMatchObject({ label: "Reason", description: "Why?" });
    expect(fields[2]!.options).toEqual([
      { value: "0", label: "1" },
      { value: "1", label: "2" },
      { value: "2", label: "3" },
    ]);
    expect(formFields(null)).toEqual([]);
    expect(formFields(normaliseForm({ reason: { type: "string" } })).map((f) => f.name)).toEqual(["reason"]);
  });
});

describe("formValueFromInput", () => {
  it("types the input: enum values, numbers, booleans, JSON; leaves empty inputs out", () => {
    const { value, problems } = formValueFromInput(schema, {
      environment: "1",
      reason: "LGTM",
      priority: "2",
      count: "4",
      ratio: "",
      notify: "true",
      tags: '["a"]',
    });
    expect(problems).toEqual([]);
    expect(value).toEqual({
      environment: "production",
      reason: "LGTM",
      priority: 3,
      count: 4,
      notify: true,
      tags: ["a"],
    });
    expect(formValueFromInput(schema, {}).value).toEqual({ notify: false });
  });
  it("names what is wrong", () => {
    const { problems } = formValueFromInput(schema, { environment: "9", count: "1.5", ratio: "x", tags: "[" });
    expect(problems).toEqual([
      '"environment" must be one of the listed choices',
      '"count" must be a whole number',
      '"ratio" must be a number',
      '"tags" must be JSON',
    ]);
  });
});
