import { describe, expect, it } from "vitest";
import {
  annotationHint,
  commentBody,
  commentPrefixOf,
  everySyntaxHint,
  hintPrefix,
  languageFromPath,
  languageFromPrefix,
} from "./language.js";

describe("languageFromPath", () => {
  it.each([
    ["f/demo/ingest.ts", "typescript"],
    ["a/b.mjs", "javascript"],
    ["x.js", "javascript"],
    ["x.py", "python"],
    ["x.sh", "bash"],
    ["f/q/daily.SQL", "sql"],
    ["x.ps1", "powershell"],
    ["f/demo/ingest", "unknown"],
    ["f/demo.d/noext", "unknown"],
    [".ts", "unknown"],
  ])("%s → %s", (path, language) => {
    expect(languageFromPath(path)).toBe(language);
  });
});

describe("comment prefixes", () => {
  it("maps languages to their native prefix and back", () => {
    expect(commentPrefixOf("typescript")).toBe("//");
    expect(commentPrefixOf("python")).toBe("#");
    expect(commentPrefixOf("bash")).toBe("#");
    expect(commentPrefixOf("sql")).toBe("--");
    expect(commentPrefixOf("unknown")).toBeUndefined();
    expect(languageFromPrefix("--")).toBe("sql");
    expect(languageFromPrefix("#")).toBe("python");
    expect(languageFromPrefix("//")).toBe("typescript");
  });

  it("reads the body of a comment line with any of the three prefixes", () => {
    expect(commentBody("// on s3://a/b")).toEqual({ prefix: "//", body: "on s3://a/b" });
    expect(commentBody("   # pipeline  ")).toEqual({ prefix: "#", body: "pipeline" });
    expect(commentBody("-- partitioned daily")).toEqual({ prefix: "--", body: "partitioned daily" });
    expect(commentBody("//pipeline")).toEqual({ prefix: "//", body: "pipeline" });
  });

  it("returns undefined for code lines", () => {
    expect(commentBody("const x = 1; // pipeline")).toBeUndefined();
    expect(commentBody("SELECT 1")).toBeUndefined();
  });
});

describe("hints in the script's comment syntax", () => {
  it("writes an annotation line with the language's own prefix, // when unknown", () => {
    expect(hintPrefix("python")).toBe("#");
    expect(hintPrefix("bash")).toBe("#");
    expect(hintPrefix("sql")).toBe("--");
    expect(hintPrefix("typescript")).toBe("//");
    expect(hintPrefix("unknown")).toBe("//");
  });

  it("names a line for several scripts in their shared syntax, else the bare annotation", () => {
    expect(annotationHint(["f/a/x.py", "f/a/y.sh"], "partitioned daily")).toBe("# partitioned daily");
    expect(annotationHint(["f/a/x.sql"], "column total <- …")).toBe("-- column total <- …");
    expect(annotationHint(["f/a/x.py", "f/a/y.ts"], "partitioned daily")).toBe("partitioned daily");
    expect(everySyntaxHint("pipeline")).toBe(
      "`// pipeline` (`# pipeline` in Python, Bash or PowerShell, `-- pipeline` in SQL)",
    );
  });
});
