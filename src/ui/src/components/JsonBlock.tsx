/** JSON shown as a readable, scrollable block with a copy button. */
import { prettyJson } from "../lib/format";
import { CopyButton } from "./CopyButton";

/** See the module comment. */
export function JsonBlock({ value, empty = "—", label }: { value: unknown; empty?: string; label?: string }) {
  if (value === null || value === undefined) return <div className="muted small">{empty}</div>;
  const text = prettyJson(value);
  return (
    <div className="json">
      <CopyButton text={text} label={label ? `Copy ${label}` : "Copy"} />
      <pre>{text}</pre>
    </div>
  );
}
