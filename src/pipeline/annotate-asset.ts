/**
 * Handler for Sluice's manual read/write override, `// asset <access> <uri>` with access
 * `read`, `write`, `readwrite` (or `rw`) or `ignore`. It settles what detection could not
 * infer (or got wrong) for one asset; see `detect-assets.ts`. The seed defers this to the
 * editor UI; Sluice, having no editor, spells it as an annotation.
 */
import type { AssetAccess } from "./annotation-types.js";
import { words, type AnnotationHandler } from "./annotation-state.js";
import { hasAssetScheme, parseAssetUri } from "./asset-uri.js";
import { PipelineError } from "./errors.js";

const ACCESS: Readonly<Record<string, AssetAccess>> = {
  read: "read",
  write: "write",
  readwrite: "readwrite",
  rw: "readwrite",
  ignore: "ignore",
};

/** The forms of the line, in the script's comment syntax. */
const form = (c: string) =>
  `write \`${c} asset read <uri>\`, \`${c} asset write <uri>\`, \`${c} asset readwrite <uri>\` or \`${c} asset ignore <uri>\``;

/** `// asset …` */
export const onAsset: AnnotationHandler = (state, rest, line) => {
  const [mode = "", uriText, ...extra] = words(rest);
  const access = ACCESS[mode];
  if (access === undefined) {
    // Prose such as "// asset loading helpers" is not an annotation; only warn when it looks like one.
    if (hasAssetScheme(mode) || (uriText !== undefined && hasAssetScheme(uriText))) {
      state.sink.warn(
        line,
        "ASSET_ACCESS_UNKNOWN",
        `\`${mode}\` is not an access mode, so this line is ignored; ${form(state.prefix)}`,
      );
    }
    return;
  }
  if (uriText === undefined || extra.length > 0) {
    state.sink.warn(
      line,
      "ASSET_OVERRIDE_MALFORMED",
      `this asset override is malformed and ignored; ${form(state.prefix)} (one URI per line)`,
    );
    return;
  }
  let asset;
  try {
    asset = parseAssetUri(uriText);
  } catch (error) {
    const reason = error instanceof PipelineError ? error.message : String(error);
    state.sink.warn(line, "ASSET_URI_INVALID", `${reason}; this override is ignored`);
    return;
  }
  const existing = state.assetOverrides.find((o) => o.asset.uri === asset.uri);
  if (existing) {
    if (existing.access !== access) {
      state.sink.warn(
        line,
        "DUPLICATE_IGNORED",
        `${asset.uri} is already overridden as ${existing.access} on line ${existing.line}; the first wins and this line is ignored`,
      );
    }
    return;
  }
  state.assetOverrides.push({ asset, access, line });
};
