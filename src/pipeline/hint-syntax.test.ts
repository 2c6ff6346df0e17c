/**
 * Every diagnostic that tells the user to write an annotation line writes it in the script's own
 * comment syntax: `# column …` in Python or Bash (`//` is floor division in Python, a path in Bash),
 * `-- column …` in SQL, `// column …` in TypeScript.
 */
import { describe, expect, it } from "vitest";
import { analyzePipeline, analyzeScript } from "./analyze.js";
import { typedRange } from "./backfill-range.js";
import type { Diagnostic } from "./diagnostics.js";

const LANGUAGES = [
  { ext: "py", c: "#" },
  { ext: "sh", c: "#" },
  { ext: "sql", c: "--" },
  { ext: "ts", c: "//" },
] as const;

const messages = (ds: readonly Diagnostic[]) => Object.fromEntries(ds.map((d) => [d.code, d.message]));

describe.each(LANGUAGES)("hints of a .$ext script", ({ ext, c }) => {
  const parse = (...lines: string[]) =>
    messages(analyzeScript({ path: `f/h/s.${ext}`, source: lines.map((l) => `${c} ${l}`).join("\n") }).diagnostics);

  it(`write the annotation lines with ${c}`, () => {
    const m = parse(
      "pipeline",
      "column total",
      "on",
      "trigger maybe",
      "freshness",
      "tag",
      "retry many",
      "partitioned",
      'schedule "0 * * * *"',
      "asset fetch s3://b/k",
      "data_test bogus",
      "retry 2",
      "retry 3 10s extra",
    );
    expect(m.COLUMN_MALFORMED).toContain(`write \`${c} column <out_col> <- <asset-uri>.<col>`);
    expect(m.ON_EMPTY).toContain(`write e.g. \`${c} on s3://bucket/key\` or \`${c} on schedule\``);
    expect(m.TRIGGER_VALUE_UNKNOWN).toContain(`Write \`${c} trigger any\` or \`${c} trigger all\``);
    expect(m.FRESHNESS_EMPTY).toContain(`write e.g. \`${c} freshness 2h\``);
    expect(m.TAG_EMPTY).toContain(`write e.g. \`${c} tag gpu\``);
    expect(m.RETRY_COUNT_INVALID).toContain(`Write e.g. \`${c} retry 3 10s\``);
    expect(m.PARTITIONED_EMPTY).toContain(`write e.g. \`${c} partitioned daily\``);
    expect(m.ANNOTATION_UNKNOWN).toContain(`write \`${c} on schedule\``);
    expect(m.ASSET_ACCESS_UNKNOWN).toContain(`\`${c} asset write <uri>\``);
    expect(m.DATA_TEST_MALFORMED).toContain(`\`${c} data_test bogus\``);
    expect(m.DUPLICATE_IGNORED).toBe(
      `this ${c} retry is ignored: the first ${c} retry (line 12) wins; remove one of them`,
    );
    if (c !== "//") for (const message of Object.values(m)) expect(message).not.toMatch(/\/\/ [a-z]/);
  });

  it(`write whole-script checks with ${c}`, () => {
    const m = parse("pipeline", "trigger all", "debounce 30s");
    expect(m.TRIGGER_ALL_NO_INPUTS).toBe(
      `\`${c} trigger all\` has no effect without \`${c} on <asset>\` inputs; remove it`,
    );
    const unmarked = parse("on schedule");
    expect(unmarked.NOT_A_PIPELINE_MEMBER).toContain(`add a \`${c} pipeline\` line`);
  });
});

describe("load-time validation of a folder", () => {
  const folder = (files: Record<string, string>) =>
    messages(analyzePipeline(Object.entries(files).map(([path, source]) => ({ path, source }))).diagnostics);

  it("names the lines in the scripts' own syntax: the join's, and the producer's", () => {
    const m = folder({
      "f/j/make.py": "# pipeline\nimport wmill\nwmill.write_s3_file('j/{partition}/a.json', b'')\n",
      "f/j/join.py": "# pipeline\n# trigger all\n# on s3://j/{partition}/a.json\n# on schedule\n",
    });
    expect(m.JOIN_INPUT_UNPARTITIONED).toContain(
      "so this `# trigger all` join would never fire. Add `# partitioned …` to the producer, or use `# trigger any`",
    );
    expect(m.WRITES_PARTITION_WITHOUT_SCHEME).toContain("add `# partitioned …`");
  });

  it("names the bare annotation when the scripts it concerns use different syntaxes", () => {
    const m = folder({
      "f/j/make.py": "# pipeline\nimport wmill\nwmill.write_s3_file('j/{partition}/a.json', b'')\n",
      "f/j/also.ts":
        "// pipeline\nimport * as wmill from 'windmill-client';\nexport async function main(partition: string) { await wmill.writeS3File({ s3: `j/${partition}/a.json` }, '') }\n",
      "f/j/join.sql": "-- pipeline\n-- trigger all\n-- on s3://j/{partition}/a.json\n-- on schedule\nSELECT 1\n",
    });
    expect(m.JOIN_INPUT_UNPARTITIONED).toContain(
      "so this `-- trigger all` join would never fire. Add `partitioned …` to the producer, or use `-- trigger any`",
    );
  });

  it("refuses // materialize outside SQL in the script's syntax", () => {
    const m = messages(
      analyzeScript({ path: "f/m/x.py", source: "# pipeline\n# materialize ducklake://main/t\n" }).diagnostics,
    );
    expect(m.MATERIALIZE_NOT_DUCKDB).toMatch(/^# materialize is for DuckDB SQL scripts, not python/);
  });

  it("a backfill with no partitioned step names the line in the steps' syntax", () => {
    expect(() =>
      typedRange([{ path: "f/b/x.py" }, { path: "f/b/y.sh" }], {
        fromPartition: "2026-05-01",
        toPartition: "2026-05-02",
      }),
    ).toThrow("none of the planned steps is partitioned (add `# partitioned daily` or another scheme)");
  });
});
