import { describe, expect, it } from "vitest";
import { parseAnnotations } from "./annotations.js";
import { detectAssets } from "./detect-assets.js";

const summary = (r: ReturnType<typeof detectAssets>) => r.assets.map((a) => `${a.access} ${a.asset.uri} @${a.line}`);
const codes = (r: ReturnType<typeof detectAssets>) => r.diagnostics.map((d) => `${d.line}:${d.code}`);

describe("TypeScript SDK calls", () => {
  it("writeS3File is a write, loadS3File a read (seed quickstart)", () => {
    const r = detectAssets(
      [
        "// pipeline",
        "// on s3://demo/raw.json",
        "import * as wmill from 'windmill-client';",
        "export async function main() {",
        "  const rows = JSON.parse(await wmill.loadS3File({ s3: 'demo/raw.json' }));",
        "  await wmill.writeS3File({ s3: 'demo/sum.json' }, JSON.stringify({ sum: rows.length }));",
        "}",
      ].join("\n"),
      { path: "f/demo/transform.ts" },
    );
    expect(summary(r)).toEqual(["read s3://demo/raw.json @5", "write s3://demo/sum.json @6"]);
    expect(r.reads.map((a) => a.asset.uri)).toEqual(["s3://demo/raw.json"]);
    expect(r.writes.map((a) => a.asset.uri)).toEqual(["s3://demo/sum.json"]);
    expect(r.writes[0]?.via).toEqual(["writeS3File"]);
    expect(r.diagnostics).toEqual([]);
  });

  it("keeps ${partition} as the {partition} token", () => {
    const r = detectAssets(
      "await wmill.writeS3File(\n  { s3: `datasets/raw/${partition}/events.parquet` },\n  data\n);",
      { language: "typescript" },
    );
    expect(summary(r)).toEqual(["write s3://datasets/raw/{partition}/events.parquet @1"]);
    expect(r.writes[0]?.asset.partitioned).toBe(true);
  });

  it("accepts an s3:// string as the S3 object", () => {
    expect(summary(detectAssets("await writeS3File('s3://b/k.json', x)", { language: "typescript" }))).toEqual([
      "write s3://b/k.json @1",
    ]);
  });

  it("resource writes and reads", () => {
    const r = detectAssets(
      "await wmill.setResource({ n: 1 }, 'f/team/state');\nconst c = await wmill.getResource('u/me/pg');",
      { language: "typescript" },
    );
    expect(summary(r)).toEqual(["write $res:f/team/state @1", "read $res:u/me/pg @2"]);
  });

  it("datatable writes resolve to tables through the SQL", () => {
    const r = detectAssets(
      [
        "const sql = wmill.datatable('main');",
        "await sql`INSERT INTO staged SELECT * FROM raw_events`;",
        "await sql`SELECT count(*) FROM staged`.fetch();",
      ].join("\n"),
      { language: "typescript" },
    );
    expect(summary(r)).toEqual(["readwrite datatable://main/staged @2", "read datatable://main/raw_events @2"]);
  });

  it("a datatable client whose SQL cannot be read is ambiguous", () => {
    const r = detectAssets("const db = wmill.datatable();\nawait db.run(query);", { language: "typescript" });
    expect(summary(r)).toEqual(["unknown datatable://main @1"]);
    expect(codes(r)).toEqual(["1:DETECT_ACCESS_UNKNOWN"]);
    expect(r.unknown).toHaveLength(1);
    expect(r.diagnostics[0]?.message).toContain("// asset write datatable://main");
  });

  it("paths built at run time are reported", () => {
    const r = detectAssets(
      "await wmill.writeS3File({ s3: `out/${day}/x.json` }, d);\nawait wmill.writeS3File(obj, d);\nawait wmill.setResource(v, path);",
      { language: "typescript" },
    );
    expect(r.assets).toEqual([]);
    expect(codes(r)).toEqual(["1:DETECT_DYNAMIC_PATH", "2:DETECT_DYNAMIC_PATH", "3:DETECT_DYNAMIC_PATH"]);
  });

  it("ignores calls in comments", () => {
    expect(detectAssets("// await wmill.writeS3File({ s3: 'a/b' }, x)", { language: "typescript" }).assets).toEqual([]);
  });
});

describe("Python SDK calls", () => {
  it("write_s3_file / load_s3_file with S3Object, dicts and f-strings", () => {
    const r = detectAssets(
      [
        "import wmill",
        "def main(partition: str):",
        "    raw = wmill.load_s3_file(S3Object(s3='lake/raw.json'))",
        '    wmill.write_s3_file({"s3": f"lake/{partition}/out.json"}, raw)',
        "    wmill.set_resource(path='f/team/state', value={})",
        '    cfg = wmill.get_resource("f/team/config")',
        "    pl.read_parquet('s3://lake/ref.parquet').write_parquet('s3://lake/copy.parquet')",
      ].join("\n"),
      { path: "x.py" },
    );
    expect(summary(r)).toEqual([
      "read s3://lake/raw.json @3",
      "write s3://lake/{partition}/out.json @4",
      "write $res:f/team/state @5",
      "read $res:f/team/config @6",
      "read s3://lake/ref.parquet @7",
      "write s3://lake/copy.parquet @7",
    ]);
  });

  it("a plain string is the S3 key itself, as both SDKs take it (f-string partition included)", () => {
    const r = detectAssets(
      [
        "import wmill",
        "def main(partition: str):",
        '    wmill.write_s3_file(f"sales/orders/{partition}.json", "[]")',
        "    wmill.load_s3_file('sales/ref.json')",
        "    wmill.write_s3_file('s3:///sales/lead.json', '[]')",
        "    wmill.write_s3_file(f'sales/{name}.json', '[]')",
      ].join("\n"),
      { path: "x.py" },
    );
    expect(summary(r)).toEqual([
      "write s3://sales/orders/{partition}.json @3",
      "read s3://sales/ref.json @4",
      "write s3://sales/lead.json @5",
    ]);
    expect(codes(r)).toEqual(["6:DETECT_DYNAMIC_PATH"]);
  });

  it("does not read Python imports or docstrings as SQL tables", () => {
    const r = detectAssets(
      'from wmill import datatable\n"""Reads from the staging area."""\ndb = datatable("main")\ndb.query("INSERT INTO staged VALUES (1)")',
      { path: "x.py" },
    );
    expect(summary(r)).toEqual(["write datatable://main/staged @4"]);
  });
});

describe("DuckDB SQL", () => {
  it("COPY (...) TO is a write, read_parquet a read", () => {
    const r = detectAssets(
      [
        "-- pipeline",
        "COPY (",
        "  SELECT * FROM read_parquet('s3://lake/raw/{partition}/events.parquet')",
        ") TO 's3://lake/clean/{partition}/events.parquet' (FORMAT parquet);",
      ].join("\n"),
      { language: "sql" },
    );
    expect(summary(r)).toEqual([
      "write s3://lake/clean/{partition}/events.parquet @2",
      "read s3://lake/raw/{partition}/events.parquet @3",
    ]);
  });

  it("COPY table TO / FROM, reader lists and FROM '<uri>'", () => {
    const r = detectAssets(
      [
        "COPY orders TO 's3://out/orders.csv';",
        "COPY staging FROM 's3://in/seed.csv';",
        "SELECT * FROM read_csv(['s3://a/1.csv', 's3://a/2.csv']);",
        "SELECT * FROM 's3://a/direct.parquet';",
        "COPY t TO 'local.csv';",
      ].join("\n"),
      { language: "sql" },
    );
    expect(summary(r)).toEqual([
      "write s3://out/orders.csv @1",
      "read s3://in/seed.csv @2",
      "read s3://a/1.csv @3",
      "read s3://a/2.csv @3",
      "read s3://a/direct.parquet @4",
    ]);
  });

  it("ATTACH aliases map qualified tables to ducklake / datatable assets", () => {
    const r = detectAssets(
      [
        "ATTACH 'ducklake://main' AS dl;",
        "ATTACH 'datatable://main' AS dt;",
        "INSERT INTO dl.orders_daily SELECT * FROM dl.orders JOIN dt.customers USING (id);",
        "CREATE OR REPLACE TABLE dl.summary AS SELECT 1;",
        "SELECT * FROM local_table;",
      ].join("\n"),
      { language: "sql" },
    );
    expect(summary(r)).toEqual([
      "write ducklake://main/orders_daily @3",
      "read ducklake://main/orders @3",
      "read datatable://main/customers @3",
      "write ducklake://main/summary @4",
    ]);
  });

  it("the managed // materialize target is a write", () => {
    const source = [
      "-- pipeline",
      "-- materialize ducklake://main/orders_daily key=order_id",
      "ATTACH 'ducklake://main' AS dl;",
      "SELECT * FROM dl.orders",
    ].join("\n");
    const { annotations } = parseAnnotations(source, { language: "sql" });
    const r = detectAssets(source, { language: "sql", annotations });
    expect(summary(r)).toEqual(["write ducklake://main/orders_daily @2", "read ducklake://main/orders @4"]);
    expect(r.writes[0]?.via).toEqual(["// materialize"]);
  });

  it("SQL inside TypeScript template literals is read too", () => {
    const r = detectAssets("await conn.run(`COPY (SELECT 1) TO 's3://lake/${partition}/x.parquet'`);", {
      language: "typescript",
    });
    expect(summary(r)).toEqual(["write s3://lake/{partition}/x.parquet @1"]);
  });
});

describe("ambiguous uses and the manual override", () => {
  it("a bare URI literal has unknown access and is pointed out", () => {
    const r = detectAssets("const target = 's3://lake/out.parquet';\nawait upload(target);", {
      language: "typescript",
    });
    expect(summary(r)).toEqual(["unknown s3://lake/out.parquet @1"]);
    expect(codes(r)).toEqual(["1:DETECT_ACCESS_UNKNOWN"]);
  });

  it("// asset write settles it, and silences dynamic-path warnings", () => {
    const source =
      "// asset write s3://lake/out.parquet\nconst target = 's3://lake/out.parquet';\nawait wmill.writeS3File(obj, x);";
    const { annotations } = parseAnnotations(source, { language: "typescript" });
    const r = detectAssets(source, { language: "typescript", annotations });
    expect(summary(r)).toEqual(["write s3://lake/out.parquet @2"]);
    expect(r.assets[0]?.overridden).toBe(true);
    expect(r.diagnostics).toEqual([]);
  });

  it("an override can add an undetected asset, flip a detection, or drop one", () => {
    const source = [
      "// asset read s3://lake/only-declared",
      "// asset read s3://demo/x.json",
      "// asset ignore s3://demo/tmp.json",
      "await wmill.writeS3File({ s3: 'demo/x.json' }, d);",
      "await wmill.writeS3File({ s3: 'demo/tmp.json' }, d);",
    ].join("\n");
    const { annotations } = parseAnnotations(source, { language: "typescript" });
    const r = detectAssets(source, { language: "typescript", annotations });
    expect(summary(r)).toEqual(["read s3://lake/only-declared @1", "read s3://demo/x.json @4"]);
  });
});
