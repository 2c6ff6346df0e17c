/** A run's trace id, linked to the trace viewer when the server has a trace URL template. */
import type { ApiTraceLink } from "../../../http/api-types";

/** See the module comment. */
export function TraceLink({ trace }: { trace: ApiTraceLink | null }) {
  if (!trace) return <span className="muted">—</span>;
  const short = trace.id.slice(0, 16);
  return trace.url ? (
    <a className="mono" href={trace.url} target="_blank" rel="noreferrer" title={trace.id} data-testid="trace-link">
      {short}…
    </a>
  ) : (
    <span className="mono" title={trace.id} data-testid="trace-id">
      {short}…
    </span>
  );
}
