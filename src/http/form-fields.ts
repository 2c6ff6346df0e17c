/**
 * Approval forms as input controls, and form input back into a typed value. Pure and
 * browser-safe: the server-rendered approval page and the web UI's run page share it.
 */
import type { FormField, FormSchema } from "../core/approval-form.js";

/** The input control of a form field. */
type FieldControl = "text" | "number" | "integer" | "checkbox" | "select" | "json";

/** One field to render. */
export interface FieldSpec {
  name: string;
  /** `title`, else the field name. */
  label: string;
  control: FieldControl;
  required: boolean;
  description: string | null;
  /** `select`: the choices; the submitted value is the index as a string. */
  options: Array<{ value: string; label: string }>;
  /** The initial input text (`checkbox`: "true" or ""; `select`: an option value or ""). */
  initial: string;
}

/** Name prefix of form fields in posted form data (`f.reason`), keeping them apart from the page's own fields. */
export const FIELD_PREFIX = "f.";

function controlOf(field: FormField): FieldControl {
  if (Array.isArray(field.enum) && field.enum.length > 0) return "select";
  switch (field.type) {
    case "number":
      return "number";
    case "integer":
      return "integer";
    case "boolean":
      return "checkbox";
    case "object":
    case "array":
      return "json";
    default:
      return "text";
  }
}

function initialText(field: FormField, control: FieldControl): string {
  const d = field.default;
  if (d === undefined || d === null) return "";
  if (control === "select") {
    const i = (field.enum ?? []).findIndex((e) => e === d);
    return i < 0 ? "" : String(i);
  }
  if (control === "checkbox") return d === true ? "true" : "";
  if (control === "json") return JSON.stringify(d, null, 2);
  return String(d);
}

/** The fields of `schema` in display order (`order`, then the rest). */
export function formFields(schema: FormSchema | null): FieldSpec[] {
  if (!schema) return [];
  return schema.order.map((name) => {
    const field = schema.properties[name] ?? {};
    const control = controlOf(field);
    return {
      name,
      label: typeof field.title === "string" && field.title ? field.title : name,
      control,
      required: schema.required.includes(name),
      description: typeof field.description === "string" && field.description ? field.description : null,
      options: (field.enum ?? []).map((e, i) => ({
        value: String(i),
        label: typeof e === "string" ? e : JSON.stringify(e),
      })),
      initial: initialText(field, control),
    };
  });
}

/**
 * Converts submitted input text (by field name) into the form's value: numbers parsed,
 * checkboxes to booleans, choices back to their enum values, JSON fields parsed. Empty
 * inputs are left out (so `required` is checked by `validateFormValue`).
 */
export function formValueFromInput(
  schema: FormSchema | null,
  input: Record<string, string | undefined>,
): { value: Record<string, unknown>; problems: string[] } {
  const value: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const f of formFields(schema)) {
    const raw = input[f.name];
    const field = schema!.properties[f.name] ?? {};
    if (f.control === "checkbox") {
      value[f.name] = raw === "true" || raw === "on";
      continue;
    }
    if (raw === undefined || raw.trim() === "") continue;
    switch (f.control) {
      case "select": {
        const choice = (field.enum ?? [])[Number(raw)];
        if (!/^\d+$/.test(raw) || choice === undefined) problems.push(`"${f.label}" must be one of the listed choices`);
        else value[f.name] = choice;
        break;
      }
      case "number":
      case "integer": {
        const n = Number(raw.trim());
        if (!Number.isFinite(n) || (f.control === "integer" && !Number.isInteger(n)))
          problems.push(`"${f.label}" must be a ${f.control === "integer" ? "whole number" : "number"}`);
        else value[f.name] = n;
        break;
      }
      case "json":
        try {
          value[f.name] = JSON.parse(raw);
        } catch {
          problems.push(`"${f.label}" must be JSON`);
        }
        break;
      default:
        value[f.name] = raw;
    }
  }
  return { value, problems };
}
