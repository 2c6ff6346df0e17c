/**
 * A run's error: name, code and message up front, the stack (and causes) below. A cancellation shows
 * its reason (its stored message, `cancelled: <reason>`, after the name would say "cancelled" twice).
 */
import type { ApiRun } from "../../../http/api-types";
import { cancelReason } from "../../../store/run-errors";

type SerializedError = NonNullable<ApiRun["error"]>;

/** See the module comment. */
export function ErrorBlock({ error, title = "Error" }: { error: SerializedError; title?: string }) {
  const message = error.code === "CANCELLED" ? (cancelReason(error) ?? "no reason given") : error.message;
  const causes: SerializedError[] = [];
  for (let c = error.cause; c && causes.length < 5; c = c.cause) causes.push(c);
  return (
    <section className="card card-error" aria-label={title}>
      <div className="card-head">
        <h2>{title}</h2>
        {error.code ? <code className="code-chip">{error.code}</code> : null}
      </div>
      <p className="error-message">
        <strong>{error.name}</strong>: {message}
      </p>
      {error.stack ? (
        <details open>
          <summary>Stack trace</summary>
          <pre className="stack">{error.stack}</pre>
        </details>
      ) : null}
      {causes.map((c, i) => (
        <p className="error-cause" key={i}>
          caused by <strong>{c.name}</strong>: {c.message}
        </p>
      ))}
    </section>
  );
}

/** An API or network failure inside a page. */
export function LoadError({ error }: { error: { message: string; status?: number } }) {
  return (
    <div className="notice notice-error" role="alert">
      {error.message}
    </div>
  );
}
