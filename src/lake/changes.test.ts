import { describe, expect, it } from "vitest";
import { changesTouchTable, formatChanges, reportChanges } from "./changes.js";

describe("snapshot changes", () => {
  it("formats the way the extension writes them and parses quoted names with commas and quotes", () => {
    const text = formatChanges([
      { kind: "created_table", schema: "main", table: 'a,"b"' },
      { kind: "inserted_into_table", tableId: 4 },
      { kind: "inserted_into_table", tableId: 4 },
      { kind: "deleted_from_table", tableId: 4 },
    ]);
    expect(text).toBe('created_table:"main"."a,""b""",inserted_into_table:4,deleted_from_table:4');
    expect(reportChanges(text)).toEqual({
      tables_created: ['main.a,"b"'],
      tables_inserted_into: ["4"],
      tables_deleted_from: ["4"],
    });
    expect(reportChanges('created_schema:"main"')).toEqual({ schemas_created: ["main"] });
    expect(reportChanges(null)).toEqual({});
  });

  it("tells whether a snapshot created or changed a table", () => {
    expect(changesTouchTable('created_table:"main"."t",inserted_into_table:3', "main.t", undefined)).toBe(true);
    expect(changesTouchTable("inserted_into_table:3", "main.t", 3)).toBe(true);
    expect(changesTouchTable("deleted_from_table:3", "main.t", 3)).toBe(true);
    expect(changesTouchTable("altered_table:3", "main.t", 3)).toBe(true);
    expect(changesTouchTable("inserted_into_table:4", "main.t", 3)).toBe(false);
    expect(changesTouchTable('created_table:"main"."u"', "main.t", undefined)).toBe(false);
    expect(changesTouchTable(null, "main.t", 3)).toBe(false);
  });
});
