/**
 * Array parameters sent as literals built by `JSON.stringify` (`store/postgres/array-literal.ts`)
 * read back in Postgres exactly as `pg`'s own conversion of the same arrays.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { arrayLiteral, withArrayLiterals } from "../../src/store/postgres/array-literal.js";
import { testDatabase } from "../helpers/postgres.js";

const url = await testDatabase("arraylit");
const client = new pg.Client({ connectionString: url });
beforeAll(() => client.connect());
afterAll(() => client.end());

const TEXTS: Array<Array<string | null | undefined>> = [
  [],
  ["a", "b"],
  [null, undefined, "NULL", "null", ""],
  ['quote " and \\ backslash', "\\\\", '"', "\\", "\\n (escaped, as JSON text holds it)"],
  ["comma,brace{}", " spaced ", "{", "}", "'single'", "ünïcödé", "日本語"],
  ['{"json":"value","n":[1,2,null]}', '"a string value"'],
];
const NUMBERS: Array<Array<number | null>> = [[], [0, -1, 1_780_000_000_123, 2 ** 53 - 1], [null, 5, null]];

/** The array Postgres reads from `value` as a parameter of type `type`. */
async function read(value: unknown, type: string): Promise<unknown> {
  const { rows } = await client.query(`SELECT $1::${type} AS v`, [value]);
  return rows[0].v;
}

describe("array parameters as JSON-built literals", () => {
  it("reads text arrays as pg's conversion does, quotes, backslashes and NULLs included", async () => {
    for (const values of TEXTS) {
      const literal = arrayLiteral(values);
      expect(literal).not.toBeNull();
      expect(await read(literal, "text[]")).toEqual(await read(values, "text[]"));
      expect(await read(literal, "text[]")).toEqual(values.map((v) => v ?? null));
    }
  });

  it("reads bigint, int and boolean arrays as pg's conversion does", async () => {
    for (const values of NUMBERS) {
      expect(await read(arrayLiteral(values), "bigint[]")).toEqual(await read(values, "bigint[]"));
    }
    expect(await read(arrayLiteral([1, null, 3]), "int[]")).toEqual([1, null, 3]);
    expect(await read(arrayLiteral([true, false, null]), "boolean[]")).toEqual([true, false, null]);
  });

  it("leaves to pg what JSON would write differently: control characters, lone surrogates, other types", async () => {
    for (const values of [
      ["line\nbreak"],
      ["nul\u0000"],
      ["tab\t"],
      ["lone \ud800"],
      [1, Infinity],
      [[1]],
      [new Date(0)],
    ])
      expect(arrayLiteral(values)).toBeNull();
    const tricky = ["line\nbreak", "tab\there", "bell\u0007", "\\ then \n"];
    const [sent] = withArrayLiterals([tricky]);
    expect(sent).toBe(tricky);
    expect(await read(sent, "text[]")).toEqual(tricky);
  });

  it("sends escaped backslashes before n, t or u and characters beyond the BMP as literals", async () => {
    const values = ["\\n is a backslash and an n", "\\\\u0041", "emoji 😀", "\u2028 separator"];
    const literal = arrayLiteral(values);
    expect(literal).not.toBeNull();
    expect(await read(literal, "text[]")).toEqual(values);
  });

  it("converts only the array parameters", () => {
    const values = withArrayLiterals([["a"], 5, "s", null, [1, 2]]);
    expect(values).toEqual(['{"a"}', 5, "s", null, "{1,2}"]);
  });
});
