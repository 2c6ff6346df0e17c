import { describe, expect, it } from "vitest";
import { choosePublicUrl, configuredPublicUrl, DEFAULT_PUBLIC_URL, normalizePublicUrl } from "./public-url.js";

describe("public URL", () => {
  it("accepts http(s) URLs with an optional path and drops trailing slashes", () => {
    expect(normalizePublicUrl("https://sluice.example.com/", "--public-url")).toBe("https://sluice.example.com");
    expect(normalizePublicUrl("http://10.0.0.5:8080/sluice/", "--public-url")).toBe("http://10.0.0.5:8080/sluice");
  });
  it("refuses anything else, naming where it came from", () => {
    for (const bad of ["sluice.example.com", "ftp://x", "https://x/?a=1", "https://u:p@x"]) {
      expect(() => normalizePublicUrl(bad, "SLUICE_PUBLIC_URL")).toThrow(/^SLUICE_PUBLIC_URL ".*" is not a public URL/);
    }
  });
  it("takes the first configured setting, else the recorded one, else the default", () => {
    expect(
      configuredPublicUrl([
        ["--public-url", undefined],
        ["SLUICE_PUBLIC_URL", "https://a.example/"],
        ["sluice.json publicUrl", "https://b.example"],
      ]),
    ).toBe("https://a.example");
    expect(
      configuredPublicUrl([
        ["--public-url", undefined],
        ["SLUICE_PUBLIC_URL", ""],
      ]),
    ).toBeNull();
    expect(choosePublicUrl("https://a.example", "http://127.0.0.1:4000")).toBe("https://a.example");
    expect(choosePublicUrl(null, "http://127.0.0.1:4000")).toBe("http://127.0.0.1:4000");
    expect(choosePublicUrl(null, "garbage")).toBe(DEFAULT_PUBLIC_URL);
    expect(choosePublicUrl(null, null)).toBe(DEFAULT_PUBLIC_URL);
  });
});
