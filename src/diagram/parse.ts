/**
 * Parsing with the real TypeScript parser, and syntax-error reporting through the public compiler API
 * (a one-file program with no lib and no module resolution, asked only for syntactic diagnostics).
 *
 * @module
 */
import ts from "typescript";
import { WorkflowSyntaxError, type SyntaxProblem } from "./errors.js";

/** The script kind the parser should use for a file name (`.tsx`, `.js`, `.jsx`, else TS). */
function scriptKindFor(fileName: string): ts.ScriptKind {
  const lower = fileName.toLowerCase();
  if (lower.endsWith(".tsx")) return ts.ScriptKind.TSX;
  if (lower.endsWith(".jsx")) return ts.ScriptKind.JSX;
  if (/\.(c|m)?js$/.test(lower)) return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

/**
 * Parses `source` as `fileName`.
 *
 * @throws {WorkflowSyntaxError} when the parser reports any syntax error.
 */
export function parseSource(source: string, fileName: string): ts.SourceFile {
  const sourceFile = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, scriptKindFor(fileName));
  const problems = syntaxProblems(sourceFile);
  if (problems.length > 0) throw new WorkflowSyntaxError(fileName, problems);
  return sourceFile;
}

function syntaxProblems(sourceFile: ts.SourceFile): SyntaxProblem[] {
  const fileName = sourceFile.fileName;
  const host: ts.CompilerHost = {
    getSourceFile: (name) => (name === fileName ? sourceFile : undefined),
    getDefaultLibFileName: () => "lib.d.ts",
    writeFile: () => undefined,
    getCurrentDirectory: () => "/",
    getCanonicalFileName: (name) => name,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => "\n",
    fileExists: (name) => name === fileName,
    readFile: () => undefined,
  };
  const program = ts.createProgram({
    rootNames: [fileName],
    options: { noLib: true, noResolve: true, types: [], allowJs: true },
    host,
  });
  return program.getSyntacticDiagnostics(sourceFile).map((diagnostic) => {
    const at = sourceFile.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    return {
      line: at.line + 1,
      column: at.character + 1,
      message: ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"),
      tsCode: diagnostic.code,
    };
  });
}
