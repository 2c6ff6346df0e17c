/**
 * Approval forms (`waitForApproval({ form })`): fields given directly as keys, or a full
 * JSON Schema object with `required` and `order`. Pure helpers shared by the CLI, the
 * API and the approval page.
 */

/** A form field (a JSON Schema property). */
export interface FormField {
  type?: string;
  description?: string;
  enum?: unknown[];
  default?: unknown;
  title?: string;
}

/** A normalised form: an object schema with ordered fields. */
export interface FormSchema {
  type: "object";
  properties: Record<string, FormField>;
  required: string[];
  order: string[];
}

/** Normalises either form style into a {@link FormSchema}; null when there is no form. */
export function normaliseForm(form: unknown): FormSchema | null {
  if (form === null || form === undefined || typeof form !== "object") return null;
  const f = form as Record<string, unknown>;
  const isSchema = f.type === "object" && typeof f.properties === "object" && f.properties !== null;
  const properties = (isSchema ? f.properties : f) as Record<string, FormField>;
  const names = Object.keys(properties);
  const order =
    Array.isArray(f.order) && isSchema
      ? [
          ...(f.order as string[]).filter((n) => names.includes(n)),
          ...names.filter((n) => !(f.order as string[]).includes(n)),
        ]
      : names;
  const required =
    isSchema && Array.isArray(f.required) ? (f.required as string[]).filter((n) => names.includes(n)) : [];
  return { type: "object", properties, required, order };
}

/** Problems of `value` against `schema` (empty when valid): missing required fields, wrong types, values outside `enum`. */
export function validateFormValue(schema: FormSchema | null, value: unknown): string[] {
  if (!schema) return [];
  if (value === null || value === undefined) value = {};
  if (typeof value !== "object" || Array.isArray(value)) return ["the form value must be a JSON object"];
  const v = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const name of schema.required) {
    if (v[name] === undefined || v[name] === null || v[name] === "") problems.push(`"${name}" is required`);
  }
  for (const [name, field] of Object.entries(schema.properties)) {
    const x = v[name];
    if (x === undefined || x === null) continue;
    if (field.enum && !field.enum.some((e) => e === x))
      problems.push(`"${name}" must be one of ${field.enum.map((e) => JSON.stringify(e)).join(", ")}`);
    else if (field.type && !matchesType(field.type, x)) problems.push(`"${name}" must be a ${field.type}`);
  }
  for (const name of Object.keys(v))
    if (!(name in schema.properties)) problems.push(`"${name}" is not a field of this form`);
  return problems;
}

function matchesType(type: string, x: unknown): boolean {
  switch (type) {
    case "string":
      return typeof x === "string";
    case "number":
      return typeof x === "number" && Number.isFinite(x);
    case "integer":
      return Number.isInteger(x);
    case "boolean":
      return typeof x === "boolean";
    case "array":
      return Array.isArray(x);
    case "object":
      return typeof x === "object" && x !== null && !Array.isArray(x);
    default:
      return true;
  }
}
