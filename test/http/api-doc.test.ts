/**
 * docs/API.md's route tables against the OpenAPI document (which `auth.test.ts` checks against
 * the app's routes): every operation the API serves has a row, and every route a row names is
 * served. A row's first cell is `METHOD /path` spans; a span of only a path (`/resume`) is a
 * sibling of the spans before it, ending one of their paths at any of its segments.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/http/openapi/document.js";
import { REPO } from "../helpers/project.js";

/** `/api/runs/:id`, `/api/runs/<id>` and `/api/runs/{id}` all read `/api/runs/*`; a query is dropped. */
const normalize = (path: string): string =>
  path
    .replace(/[?[].*$/, "")
    .replace(/\/(:[\w]+|<[^>]+>|\{[^}]+\})/g, "/*")
    .replace(/\/$/, "");

/** Each span of a row's first cell as the `METHOD path` choices it can stand for (one, or a sibling's several). */
function documentedRoutes(markdown: string): { span: string; choices: string[] }[] {
  const spans: { span: string; choices: string[] }[] = [];
  for (const line of markdown.split("\n")) {
    if (!/^\| `(GET|POST|PUT|PATCH|DELETE) \//.test(line)) continue;
    const cell = line.split(/(?<!\\)\|/)[1]!;
    let method = "";
    let bases: string[] = [];
    for (const [, span] of cell.matchAll(/`([^`]+)`/g)) {
      const full = /^([A-Z]+) (\/\S*)$/.exec(span!);
      if (full) {
        method = full[1]!;
        bases = [normalize(full[2]!)];
        spans.push({ span: span!, choices: [`${method} ${bases[0]}`] });
      } else if (span!.startsWith("/") && method) {
        const paths = bases.flatMap((base) =>
          base.split("/").map((_, i, segments) => `${segments.slice(0, i).join("/")}${normalize(span!)}`),
        );
        bases = [...bases, ...paths];
        spans.push({ span: span!, choices: paths.map((path) => `${method} ${path}`) });
      }
    }
  }
  return spans;
}

const served = Object.entries(openApiDocument().paths as Record<string, Record<string, unknown>>).flatMap(
  ([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${normalize(path)}`),
);
const documented = documentedRoutes(readFileSync(join(REPO, "docs", "API.md"), "utf8"));

describe("docs/API.md lists the API's routes", () => {
  it("every operation of the OpenAPI document has a row", () => {
    expect(served.length).toBeGreaterThan(40);
    const rowChoices = new Set(documented.flatMap((d) => d.choices));
    expect(served.filter((route) => !rowChoices.has(route))).toEqual([]);
  });

  it("every route a row names is served", () => {
    expect(documented.length).toBeGreaterThan(40);
    const servedSet = new Set(served);
    expect(documented.filter((d) => !d.choices.some((c) => servedSet.has(c))).map((d) => d.span)).toEqual([]);
  });
});
