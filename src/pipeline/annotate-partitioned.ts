/**
 * Handler for `// partitioned <kind> [tz= format= start= key=]`.
 *
 * Ignored with a warning (the script stays unpartitioned or keeps the option's default):
 * an empty line, an unknown kind, unknown options, options that do not apply to the kind,
 * repeated options (first wins), unreadable tokens, and any later `// partitioned` line.
 *
 * Errors (the seed fails the run on these; Sluice rejects the script at load time):
 * an invalid `tz=`, an invalid `start=`, an unsupported `format=`, `dynamic` without a
 * valid `key=`.
 */
import { noteMemberOnly, type AnnotationHandler, type ParseState } from "./annotation-state.js";
import { PipelineError } from "./errors.js";
import { tokenizeOptions } from "./option-list.js";
import {
  createPartitionSpec,
  formatAdvice,
  isPartitionKind,
  PARTITION_KINDS,
  type PartitionKind,
  type PartitionOptions,
} from "./partition-spec.js";

const TIME_OPTIONS = ["tz", "format", "start"] as const;
const ALL_OPTIONS = ["tz", "format", "start", "key"] as const;
type OptionName = (typeof ALL_OPTIONS)[number];

function applies(kind: PartitionKind, name: OptionName): boolean {
  return kind === "dynamic" ? name === "key" : (TIME_OPTIONS as readonly string[]).includes(name);
}

function readOptions(state: ParseState, kind: PartitionKind, text: string, line: number): PartitionOptions {
  const options: Partial<Record<OptionName, string>> = {};
  for (const token of tokenizeOptions(text)) {
    if (token.type === "malformed") {
      state.sink.warn(
        line,
        "PARTITIONED_OPTION_MALFORMED",
        `\`${token.raw}\` cannot be read (${token.reason}) and is ignored; write options as name="value"`,
      );
    } else if (token.type === "word") {
      state.sink.warn(
        line,
        "PARTITIONED_OPTION_UNKNOWN",
        `\`${token.raw}\` is not an option and is ignored; options are written name="value" (tz, format, start for time kinds; key for dynamic)`,
      );
    } else if (!(ALL_OPTIONS as readonly string[]).includes(token.name)) {
      state.sink.warn(
        line,
        "PARTITIONED_OPTION_UNKNOWN",
        `option ${token.name}= is unknown and ignored; use tz=, format=, start= (time kinds) or key= (dynamic)`,
      );
    } else if (!applies(kind, token.name as OptionName)) {
      const why = kind === "dynamic" ? "dynamic partitions take only key=" : "key= applies to dynamic partitions only";
      state.sink.warn(
        line,
        "PARTITIONED_OPTION_NOT_APPLICABLE",
        `${token.name}= does not apply to ${kind} partitions and is ignored (${why})`,
      );
    } else if (options[token.name as OptionName] !== undefined) {
      state.sink.warn(
        line,
        "PARTITIONED_OPTION_REPEATED",
        `${token.name}= is given twice; the first value wins and ${JSON.stringify(token.value)} is ignored`,
      );
    } else {
      options[token.name as OptionName] = token.value;
    }
  }
  return options;
}

/** `// partitioned …` */
export const onPartitioned: AnnotationHandler = (state, rest, line) => {
  const kindText = rest.split(/\s+/, 1)[0] ?? "";
  if (kindText === "") {
    state.sink.warn(
      line,
      "PARTITIONED_EMPTY",
      `\`${state.prefix} partitioned\` needs a kind and is ignored; write e.g. \`${state.prefix} partitioned daily\` (kinds: ${PARTITION_KINDS.join(", ")})`,
    );
    return;
  }
  if (!isPartitionKind(kindText)) {
    state.sink.warn(
      line,
      "PARTITIONED_KIND_UNKNOWN",
      `partition kind \`${kindText}\` is unknown, so this line is ignored and the script is not partitioned; use one of ${PARTITION_KINDS.join(", ")}`,
    );
    return;
  }
  if (state.partitionedLine !== undefined) {
    state.sink.warn(
      line,
      "DUPLICATE_IGNORED",
      `this ${state.prefix} partitioned is ignored: at most one per script and the first (line ${state.partitionedLine}) wins; remove this line`,
    );
    return;
  }
  noteMemberOnly(state, line);
  state.partitionedLine = line;
  const options = readOptions(state, kindText, rest.slice(kindText.length), line);
  try {
    const spec = createPartitionSpec(kindText, options);
    for (const advice of formatAdvice(spec)) state.sink.warn(line, "PARTITIONED_FORMAT_LOSSY", advice);
    state.partitioned = { spec, line };
  } catch (error) {
    if (!(error instanceof PipelineError)) throw error;
    state.sink.error(line, error.code, error.message);
  }
};
