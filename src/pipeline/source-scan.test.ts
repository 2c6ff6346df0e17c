import { describe, expect, it } from "vitest";
import {
  blankCommentLines,
  callArguments,
  lineLocator,
  readStringLiteral,
  skipParens,
  stringLiterals,
} from "./source-scan.js";

describe("readStringLiteral", () => {
  it("reads quoted strings with escapes", () => {
    expect(readStringLiteral("'a\\'b' rest", 0)).toEqual({ value: "a'b", dynamic: false, end: 6 });
    expect(readStringLiteral('"x"', 0)?.value).toBe("x");
  });

  it("rewrites ${partition} in template literals and flags other interpolations", () => {
    expect(readStringLiteral("`lake/${partition}/x`", 0)).toMatchObject({
      value: "lake/{partition}/x",
      dynamic: false,
    });
    expect(readStringLiteral("`lake/${ partition }/x`", 0)?.value).toBe("lake/{partition}/x");
    expect(readStringLiteral("`lake/${day}/x`", 0)?.dynamic).toBe(true);
  });

  it("handles Python f-strings and triple quotes", () => {
    expect(readStringLiteral('f"lake/{partition}/x"', 0)).toMatchObject({
      value: "lake/{partition}/x",
      dynamic: false,
    });
    expect(readStringLiteral('f"lake/{day}/x"', 0)?.dynamic).toBe(true);
    expect(readStringLiteral('"""SELECT 1\nFROM t"""', 0)?.value).toBe("SELECT 1\nFROM t");
    expect(readStringLiteral("f'''a {partition} {x}'''", 0)).toMatchObject({
      value: "a {partition} {x}",
      dynamic: true,
    });
  });

  it("keeps ${partition} found inside a quote nested in a template", () => {
    expect(readStringLiteral("'s3://l/${partition}/x'", 0)).toMatchObject({
      value: "s3://l/{partition}/x",
      dynamic: false,
    });
  });

  it("returns undefined for unclosed or non-literals", () => {
    expect(readStringLiteral("'abc", 0)).toBeUndefined();
    expect(readStringLiteral("'a\nb'", 0)).toBeUndefined();
    expect(readStringLiteral("abc", 0)).toBeUndefined();
  });
});

describe("stringLiterals / callArguments / skipParens / lines", () => {
  it("lists literals with their start", () => {
    expect(stringLiterals(`x('a', f"b", "c")`).map((l) => [l.value, l.start])).toEqual([
      ["a", 2],
      ["b", 7],
      ["c", 13],
    ]);
  });

  it("splits top-level call arguments", () => {
    const text = `fn({ s3: 'a,b' }, [1, 2], "x)")`;
    expect(callArguments(text, 2).map((a) => a.text)).toEqual([`{ s3: 'a,b' }`, "[1, 2]", `"x)"`]);
    expect(callArguments("fn()", 2)).toEqual([]);
    expect(callArguments("fn(a", 2)).toEqual([]);
  });

  it("skips balanced parentheses", () => {
    expect(skipParens("(a (b) ')') c", 0)).toBe(11);
    expect(skipParens("(a", 0)).toBeUndefined();
  });

  it("blanks comment lines but keeps line numbers", () => {
    expect(blankCommentLines("a\n// b\n  # c\n-- d", "typescript")).toBe("a\n\n  # c\n-- d");
    expect(blankCommentLines("a\n-- b", "sql")).toBe("a\n");
    expect(blankCommentLines("# a\nb", "python")).toBe("\nb");
    expect(blankCommentLines("# a\n// b\n-- c\nd", "unknown")).toBe("\n\n\nd");
  });

  it("maps offsets to 1-based lines", () => {
    const line = lineLocator("ab\ncd\n\nef");
    expect([0, 2, 3, 6, 7, 9].map(line)).toEqual([1, 1, 2, 3, 4, 4]);
  });
});
