/**
 * The JSON values a Python parameter takes, read from its type hint as `wmill._inspect` reports
 * it (`int`, `list`, `Optional`, `int | None`, or the text of a string annotation). Only hints
 * whose JSON values are certain are read; any other (a class, `Any`, `Union[…]`, `datetime`) is
 * left unchecked, as is a hint that names one of them. Pure.
 */
import type { JsonKind, ParamSpec } from "../../core/params.js";
import type { PythonParam } from "./inspect.js";

const KINDS: Record<string, JsonKind[]> = {
  int: ["integer"],
  float: ["number"],
  str: ["string"],
  bool: ["boolean"],
  list: ["array"],
  List: ["array"],
  tuple: ["array"],
  Tuple: ["array"],
  dict: ["object"],
  Dict: ["object"],
  None: ["null"],
  NoneType: ["null"],
};

/** Splits `text` at `sep` outside brackets. */
function splitTop(text: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "[") depth++;
    else if (c === "]") depth--;
    else if (c === sep && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim());
}

/** The JSON kinds of a hint (`Optional[int]` → integer or null); null when they are not certain. */
export function jsonKindsOfHint(hint: string): JsonKind[] | null {
  const text = hint.trim().replace(/^typing\./, "");
  const optional = /^Optional\[(.*)\]$/s.exec(text);
  if (optional) {
    const inner = jsonKindsOfHint(optional[1]!);
    return inner && [...new Set<JsonKind>([...inner, "null"])];
  }
  const parts = splitTop(text, "|");
  if (parts.length > 1) {
    const kinds = parts.map(jsonKindsOfHint);
    return kinds.every((k) => k !== null) ? [...new Set(kinds.flat() as JsonKind[])] : null;
  }
  const base = /^([A-Za-z_][\w.]*)(\[.*\])?$/s.exec(text)?.[1]?.replace(/^typing\./, "");
  return (base !== undefined && KINDS[base]) || null;
}

/** The parameters an enqueue is checked against, with their JSON types (null: `*args`/`**kwargs`, not checked). */
export function pythonParamSpec(params: PythonParam[] | null): ParamSpec | null {
  if (params === null) return null;
  const spec: ParamSpec = {
    names: params.map((p) => p.name),
    required: params.filter((p) => p.required).map((p) => p.name),
  };
  const types = params.flatMap((p) => {
    const json = p.type === null ? null : jsonKindsOfHint(p.type);
    return json ? [[p.name, { hint: p.type!, json }] as const] : [];
  });
  if (types.length) spec.types = Object.fromEntries(types);
  return spec;
}
