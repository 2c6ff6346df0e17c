import { describe, expect, it } from "vitest";
import { tokenizeOptions } from "./option-list.js";

describe("tokenizeOptions", () => {
  it("reads words and name=value options with any quoting", () => {
    expect(tokenizeOptions(` daily tz="America/New_York" format='%Y/%m/%d' start=2026-01-01 `)).toEqual([
      { type: "word", raw: "daily" },
      { type: "option", name: "tz", value: "America/New_York", raw: 'tz="America/New_York"' },
      { type: "option", name: "format", value: "%Y/%m/%d", raw: "format='%Y/%m/%d'" },
      { type: "option", name: "start", value: "2026-01-01", raw: "start=2026-01-01" },
    ]);
  });

  it("quoted values may hold spaces and = signs", () => {
    expect(tokenizeOptions('format="%Y %m" key="a=b"')).toMatchObject([
      { type: "option", name: "format", value: "%Y %m" },
      { type: "option", name: "key", value: "a=b" },
    ]);
  });

  it("empty values are options with an empty value", () => {
    expect(tokenizeOptions('key= tz=""')).toMatchObject([
      { type: "option", name: "key", value: "" },
      { type: "option", name: "tz", value: "" },
    ]);
  });

  it("reports malformed tokens", () => {
    expect(tokenizeOptions('tz="UTC')).toMatchObject([{ type: "malformed", reason: 'unterminated " quote' }]);
    expect(tokenizeOptions('tz="UTC"x')).toMatchObject([
      { type: "malformed", reason: "text right after the closing quote" },
    ]);
    expect(tokenizeOptions("=x")).toMatchObject([{ type: "malformed" }]);
    expect(tokenizeOptions('="x"')).toMatchObject([{ type: "malformed" }]);
    expect(tokenizeOptions("tz=Eu'rope")).toMatchObject([{ type: "malformed" }]);
  });

  it("returns nothing for blank input", () => {
    expect(tokenizeOptions("   ")).toEqual([]);
  });
});
