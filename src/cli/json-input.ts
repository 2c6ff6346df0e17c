/**
 * JSON values given to a command (a payload, an approval's form value): inline on the
 * command line, or from a file or standard input with `--payload-file`/`--value-file`
 * (`-` is standard input), for values over the OS's argument-size limit (~128 KiB).
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { InvalidInputError } from "../sdk/errors.js";
import type { CliIO } from "./io.js";
import { parseJsonArg } from "./options.js";

/** Where one JSON value of a command may come from. */
export interface JsonInput {
  /** The inline text, if given. */
  inline: string | undefined;
  /** The file option's value (`-` for standard input), if given. */
  file: string | undefined;
  /** How the inline form is named in messages (`payload`, `--value`). */
  inlineName: string;
  /** The file option's flag (`--payload-file`). */
  fileFlag: string;
  /** The value when neither is given. */
  fallback: unknown;
}

/**
 * Reads and parses the value.
 * @throws InvalidInputError when both forms are given, the file cannot be read, or the text is not JSON
 */
export async function readJsonInput(io: CliIO, input: JsonInput): Promise<unknown> {
  if (input.file === undefined) return parseJsonArg(input.inline, input.inlineName, input.fallback);
  if (input.inline !== undefined) {
    throw new InvalidInputError(`give the ${input.inlineName} either inline or with ${input.fileFlag}, not both`, {
      code: "INVALID_INPUT",
    });
  }
  const text =
    input.file === "-" ? await readStdin(io, input.fileFlag) : await readInputFile(io, input.file, input.fileFlag);
  if (text.trim() === "")
    throw new InvalidInputError(
      `${input.fileFlag} ${input.file === "-" ? "(standard input)" : input.file} is empty: it must hold one JSON value`,
      { code: "INVALID_JSON" },
    );
  return parseJsonArg(
    text,
    `${input.inlineName} from ${input.file === "-" ? "standard input" : input.file}`,
    input.fallback,
  );
}

async function readInputFile(io: CliIO, file: string, flag: string): Promise<string> {
  try {
    return await readFile(resolve(io.cwd, file), "utf8");
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (err as Error).message;
    throw new InvalidInputError(`cannot read ${flag} ${file}: ${reason}`, {
      code: "INPUT_FILE_UNREADABLE",
      cause: err,
    });
  }
}

async function readStdin(io: CliIO, flag: string): Promise<string> {
  if (!io.readStdin)
    throw new InvalidInputError(
      `${flag} - reads standard input, which this caller does not provide: pass a file instead`,
      { code: "INVALID_INPUT" },
    );
  return io.readStdin();
}
