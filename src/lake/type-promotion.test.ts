import { describe, expect, it } from "vitest";
import { isPromotion } from "./type-promotion.js";

describe("DuckLake type promotions", () => {
  it("allows exactly the specification's table", () => {
    const ok = [
      ["int8", "int64"],
      ["int16", "int32"],
      ["int32", "int64"],
      ["uint8", "uint64"],
      ["uint16", "uint32"],
      ["uint32", "uint64"],
      ["float32", "float64"],
    ];
    const refused = [
      ["int64", "int32"],
      ["int64", "int128"],
      ["uint32", "int64"],
      ["int32", "float64"],
      ["float64", "float32"],
      ["decimal(4,2)", "decimal(10,2)"],
      ["int32", "int32"],
    ];
    expect(ok.map(([a, b]) => isPromotion(a!, b!))).toEqual(ok.map(() => true));
    expect(refused.map(([a, b]) => isPromotion(a!, b!))).toEqual(refused.map(() => false));
  });
});
