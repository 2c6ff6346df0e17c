import { describe, expect, it } from "vitest";
import { PartitionConfigError, PartitionResolutionError } from "./errors.js";
import { extractScalar, parseKeyPath } from "./key-path.js";

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
}

describe("parseKeyPath ($.a.b.c only)", () => {
  it("splits a dotted path", () => {
    expect(parseKeyPath("$.tenant_id")).toEqual(["tenant_id"]);
    expect(parseKeyPath("$.customer.id")).toEqual(["customer", "id"]);
    expect(parseKeyPath("$.a-b.c_d.e1")).toEqual(["a-b", "c_d", "e1"]);
  });

  it.each(["tenant_id", "$", "$.", "$.a..b", "$.a[0]", "$.items.*", "$.a[?(@.x)]", "$..a", "$.'a'", "$.a b"])(
    "rejects %j (no indexing, wildcards or filters)",
    (key) => {
      expect(() => parseKeyPath(key)).toThrow(PartitionConfigError);
      expect(codeOf(() => parseKeyPath(key))).toBe("PARTITION_KEY_INVALID");
    },
  );
});

describe("extractScalar", () => {
  const payload = { tenant_id: "acme", n: 42, ok: true, nested: { id: "x" }, list: [1], nil: null, f: 1.5 };

  it("reads string, number and boolean leaves", () => {
    expect(extractScalar(payload, ["tenant_id"], "$.tenant_id")).toBe("acme");
    expect(extractScalar(payload, ["n"], "$.n")).toBe("42");
    expect(extractScalar(payload, ["f"], "$.f")).toBe("1.5");
    expect(extractScalar(payload, ["ok"], "$.ok")).toBe("true");
    expect(extractScalar(payload, ["nested", "id"], "$.nested.id")).toBe("x");
  });

  it("fails on a missing key with PARTITION_KEY_MISSING", () => {
    expect(codeOf(() => extractScalar(payload, ["missing"], "$.missing"))).toBe("PARTITION_KEY_MISSING");
    expect(codeOf(() => extractScalar(payload, ["tenant_id", "x"], "$.tenant_id.x"))).toBe("PARTITION_KEY_MISSING");
    expect(codeOf(() => extractScalar(payload, ["list", "0"], "$.list.0"))).toBe("PARTITION_KEY_MISSING");
    expect(codeOf(() => extractScalar("text", ["a"], "$.a"))).toBe("PARTITION_KEY_MISSING");
  });

  it("does not follow inherited properties", () => {
    expect(codeOf(() => extractScalar({}, ["toString"], "$.toString"))).toBe("PARTITION_KEY_MISSING");
    expect(codeOf(() => extractScalar({}, ["__proto__"], "$.__proto__"))).toBe("PARTITION_KEY_MISSING");
  });

  it("fails on a non-scalar leaf with PARTITION_KEY_NOT_SCALAR", () => {
    for (const key of ["nested", "list", "nil"]) {
      expect(codeOf(() => extractScalar(payload, [key], `$.${key}`))).toBe("PARTITION_KEY_NOT_SCALAR");
    }
    expect(codeOf(() => extractScalar({ x: Number.NaN }, ["x"], "$.x"))).toBe("PARTITION_KEY_NOT_SCALAR");
    expect(() => extractScalar(payload, ["nested"], "$.nested")).toThrow(PartitionResolutionError);
  });
});
