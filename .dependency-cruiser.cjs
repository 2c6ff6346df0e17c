// The layer rules of docs/ARCHITECTURE.md, checked by `npm run lint:layers` (in .ci/run).
// Dependencies point down:
//
//   cli → http → triggers/runtime → lanes, pipeline/runtime → lake → assets → loader, engine → worker, scheduler → store → core
//   triggers/ (without runtime/) is pure: trigger rows, message → run mapping, state encoding.
//   sdk (the public contract) is imported by everything and imports only core; core imports nothing of Sluice.
//   testing/ (the `sluice/testing` entry point) sits on the engine and loader; nothing imports it.
//   pipeline/ (without runtime/) and diagram/ are pure analysis: they import only core and sdk.
//
// Each rule names a layer and what it may import of Sluice; npm packages and node: builtins are
// not restricted here. `type-only` imports of the engine are allowed in the worker (it knows the
// committer, events and registry only through their types and constructor arguments).

/** A rule: files matching `from` may import nothing of src/ except `allowed` (regex alternatives). */
function layer(name, from, allowed, comment, fromNot) {
  return {
    name,
    comment,
    severity: "error",
    from: { path: from, pathNot: fromNot ? [TESTS, fromNot] : TESTS },
    to: { path: "^src/", pathNot: `^src/(${allowed})` },
  };
}

/** Unit tests beside the code may import what they test with. */
const TESTS = "\\.test\\.tsx?$";
/** Hands the SDK entry points themselves to bundled user code, so it may import them. */
const SDK_MODULES = "^src/loader/sdk-modules\\.ts$";

const SRC = "core/|sdk/";

module.exports = {
  forbidden: [
    layer(
      "core-is-pure",
      "^src/core/",
      "core/",
      "core/ imports nothing of Sluice (pure logic; its errors are core/errors.ts)",
    ),
    layer("sdk-imports-only-core", "^src/sdk/", SRC, "the public SDK contract imports only core/"),
    layer(
      "store-below-engine",
      "^src/store/",
      `${SRC}|store/`,
      "the store reads and writes; it knows nothing of workers, engine or loader",
    ),
    layer("scheduler-above-store", "^src/scheduler/", `${SRC}|store/|scheduler/`, "the scheduler uses the store only"),
    layer(
      "worker-above-store",
      "^src/worker/",
      `${SRC}|store/|worker/|engine/`,
      "the worker uses the store; the engine only through types (checked by worker-knows-engine-by-type)",
    ),
    {
      name: "worker-knows-engine-by-type",
      comment:
        "the worker knows the engine's committer, events and registry only through their types and constructor arguments",
      severity: "error",
      from: { path: "^src/worker/", pathNot: "\\.test\\.tsx?$" },
      to: { path: "^src/engine/", dependencyTypesNot: ["type-only"] },
    },
    layer(
      "engine-and-loader",
      "^src/(engine|loader)/",
      `${SRC}|store/|worker/|scheduler/|engine/|loader/`,
      "engine and loader sit on worker, scheduler and store",
      SDK_MODULES,
    ),
    layer(
      "sdk-modules-serve-entry-points",
      SDK_MODULES,
      `${SRC}|index\\.ts$|tako\\.ts$|windmill\\.ts$`,
      "the loader's SDK module table imports the public entry points (the same instance user code shares) and nothing else",
    ),
    layer("diagram-is-pure", "^src/diagram/", `${SRC}|diagram/`, "static analysis of workflow source: pure"),
    layer(
      "pipeline-is-pure",
      "^src/pipeline/(?!runtime/)",
      `${SRC}|pipeline/(?!runtime/)`,
      "pipeline/ (annotations, asset URIs, lineage) is pure; running pipelines is pipeline/runtime/",
    ),
    layer(
      "assets-below-pipelines",
      "^src/assets/",
      `${SRC}|store/|assets/`,
      "assets store data; they do not know pipelines (no cycle between assets/ and pipeline/)",
    ),
    layer("lake-on-assets", "^src/lake/", `${SRC}|store/|assets/|lake/`, "DuckLake sits on the asset storage"),
    layer(
      "testing-on-engine",
      "^src/testing/",
      `${SRC}|store/|engine/|loader/|testing/`,
      "sluice/testing drives a real engine (and the loader, for a project folder); nothing imports it",
    ),
    {
      name: "nothing-imports-testing",
      comment: "sluice/testing is an entry point for users' tests: no layer of Sluice depends on it",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/testing(/|\\.ts$)", TESTS] },
      to: { path: "^src/testing(/|\\.ts$)" },
    },
    layer(
      "lanes-below-cli",
      "^src/lanes/",
      `${SRC}|store/|worker/|scheduler/|engine/|loader/|lanes/`,
      "the lane supervisor starts workers for the engine's queues; the CLI and HTTP layers use it",
    ),
    layer(
      "triggers-are-pure",
      "^src/triggers/(?!runtime/)",
      `${SRC}|pipeline/(?!runtime/)|triggers/(?!runtime/)`,
      "triggers/ (rows, mapping, state) is pure; consuming messages is triggers/runtime/",
    ),
    layer(
      "triggers-runtime-below-http",
      "^src/triggers/runtime/",
      `${SRC}|store/|worker/|scheduler/|engine/|loader/|assets/|lake/|pipeline/|triggers/`,
      "consuming triggers sits on the engine and the pipeline runtime; the CLI and HTTP layers use it",
    ),
    layer(
      "pipeline-runtime-below-cli",
      "^src/pipeline/runtime/",
      `${SRC}|store/|worker/|scheduler/|engine/|loader/|assets/|lake/|pipeline/|triggers/(?!runtime/)`,
      "running pipelines sits on the engine, loader, assets and lakes; the CLI and HTTP layers use it",
    ),
    layer(
      "release-below-cli",
      "^src/release/",
      `${SRC}|store/|worker/|scheduler/|engine/|loader/|assets/|lake/|pipeline/|release/`,
      "building, publishing and following releases sits on the loader, the pipelines and the store; the CLI uses it",
    ),
    layer(
      "http-below-cli",
      "^src/http/",
      `${SRC}|store/|worker/|scheduler/|engine/|loader/|assets/|lake/|pipeline/|lanes/|diagram/|triggers/|http/`,
      "the HTTP layer never imports the CLI",
    ),
    {
      name: "pure-layers-do-no-io",
      comment:
        "core/, diagram/ and pipeline/ (without runtime/) are pure: no file, network, process or timer I/O " +
        "(node:crypto is computation; diagram/fixtures.ts reads the test fixtures from a checkout)",
      severity: "error",
      from: {
        path: "^src/(core|diagram|pipeline/(?!runtime/)|triggers/(?!runtime/))",
        pathNot: [TESTS, "^src/diagram/fixtures\\.ts$"],
      },
      to: { dependencyTypes: ["core"], pathNot: "^(node:)?crypto$" },
    },
    {
      name: "no-circular",
      comment: "no import cycles",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(dist|node_modules)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
