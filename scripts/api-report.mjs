// The public API report (issue 10): api-extractor reads the compiled declarations of every
// package entry point (dist/*.d.ts, so run `npm run build` first) and writes what they export,
// with every signature, to etc/api/<entry>.api.md. The reports are committed: a change to the
// public surface shows in review as a diff of those files.
//
//   node scripts/api-report.mjs           fails when a report differs from the committed one (CI)
//   node scripts/api-report.mjs --update  rewrites the reports after an intended API change
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const update = process.argv.includes("--update");
/** Entry points of package.json `exports` and the report each gets. */
const ENTRIES = [
  { name: "sluice", dts: "dist/index.d.ts" },
  { name: "sluice-tako", dts: "dist/tako.d.ts" },
  { name: "sluice-windmill", dts: "dist/windmill.d.ts" },
  { name: "sluice-testing", dts: "dist/testing.d.ts" },
];

mkdirSync(join(root, "etc", "api"), { recursive: true });
let failed = 0;
for (const entry of ENTRIES) {
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: join(root, entry.dts),
      compiler: { tsconfigFilePath: join(root, "tsconfig.json") },
      apiReport: {
        enabled: true,
        reportFileName: `${entry.name}.api.md`,
        reportFolder: join(root, "etc", "api"),
        reportTempFolder: join(root, ".api-report"),
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        extractorMessageReporting: {
          default: { logLevel: "warning" },
          // Types reachable from the API but not exported by name are listed in the report as
          // such; that is information for the reviewer, not an error.
          "ae-forgotten-export": { logLevel: "none", addToApiReportFile: true },
          "ae-missing-release-tag": { logLevel: "none" },
          // TSDoc coverage is ESLint's concern; the report marks undocumented members itself.
          "ae-undocumented": { logLevel: "none", addToApiReportFile: true },
          // Links written for editors ({@link enqueue} within a type) need not resolve from the entry.
          "ae-unresolved-link": { logLevel: "none" },
        },
        tsdocMessageReporting: { default: { logLevel: "none" } },
        compilerMessageReporting: { default: { logLevel: "warning" } },
      },
    },
    configObjectFullPath: join(root, "api-extractor.json"),
    packageJsonFullPath: join(root, "package.json"),
  });
  const result = Extractor.invoke(config, { localBuild: update, showVerboseMessages: false });
  if (result.apiReportChanged && !update) {
    failed++;
    console.error(
      `api report: the public API of \`${entry.name}\` changed (etc/api/${entry.name}.api.md). ` +
        "If intended, run `npm run api:update` and commit the report.",
    );
  } else if (!result.succeeded) {
    failed++;
    console.error(`api report: ${entry.name}: ${result.errorCount} error(s), ${result.warningCount} warning(s)`);
  }
}
process.exit(failed ? 1 : 0);
