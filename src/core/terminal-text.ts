/**
 * Making user-provided text (run ids, workflow names, error messages, log lines) safe
 * to print on a terminal. Pure; the one rule every human-readable output uses.
 *
 * Control characters could move the cursor, set the window title, clear the screen
 * (ESC sequences), or forge lines of our own output (a newline in an id). They are
 * shown as visible escapes instead: `\x1b`, `\r`, `\u202e`.
 */

/** C0 controls, DEL, C1 controls, line/paragraph separators and bidirectional overrides. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point here
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escapeChar(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * `text` with every control character escaped, on one line.
 * With `indent`, newlines and tabs are kept (for log lines and stack traces) and each
 * continuation line starts with `indent`, so it cannot pass for a line of our own.
 * @example terminalSafe("a\u001b]0;owned\u0007") // "a\\x1b]0;owned\\x07"
 */
export function terminalSafe(text: string, options: { indent?: string } = {}): string {
  const { indent } = options;
  if (indent === undefined) return text.replace(UNSAFE, escapeChar);
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(UNSAFE, (ch) => (ch === "\t" ? ch : escapeChar(ch))))
    .join(`\n${indent}`);
}
