import { describe, expect, it } from "vitest";
import { KeyAllocator } from "./keys.js";

describe("KeyAllocator", () => {
  it("numbers repeated names in call order and keeps names independent", () => {
    const keys = new KeyAllocator();
    expect([keys.next("double"), keys.next("double"), keys.next("add"), keys.next("double")]).toEqual([
      "double",
      "double#2",
      "add",
      "double#3",
    ]);
  });
});
