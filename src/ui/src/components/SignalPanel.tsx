/**
 * A run waiting for an event (`waitFor` / `ctx.waitFor`) on the run page: which event, when the
 * wait times out, and a form sending the signal (`POST /api/signals`, as `sluice signal` does),
 * or the command to run for a read-only identity.
 */
import { useState } from "react";
import type { ApiStep } from "../../../http/api-types";
import { api, ApiError } from "../api/client";
import { duration } from "../lib/format";

/** Parses the payload box: empty is no payload, anything else must be JSON. */
function parsePayload(text: string): { payload?: unknown; problem?: string } {
  if (text.trim() === "") return {};
  try {
    return { payload: JSON.parse(text) as unknown };
  } catch (e) {
    return { problem: `The payload is not JSON (${(e as Error).message}): fix it, or leave it empty to send none.` };
  }
}

/** See the module comment. */
export function SignalPanel({
  step,
  canSend,
  onSent,
  now,
}: {
  step: ApiStep & { event: string };
  canSend: boolean;
  onSent(): void;
  now: number;
}) {
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const send = async () => {
    setProblem(null);
    setSent(null);
    const parsed = parsePayload(text);
    if (parsed.problem) return setProblem(parsed.problem);
    setBusy(true);
    try {
      const res = await api<{ woke: number }>("/api/signals", {
        method: "POST",
        body: { event: step.event, ...("payload" in parsed ? { payload: parsed.payload } : {}) },
      });
      setSent(`Sent: woke ${res.woke} run${res.woke === 1 ? "" : "s"}.`);
      onSent();
    } catch (e) {
      setProblem((e as ApiError).message);
    } finally {
      setBusy(false);
    }
  };
  const left = step.wakeAt ? new Date(step.wakeAt).getTime() - now : null;
  const id = `signal-${step.key}`;
  return (
    <section className="card card-approval" aria-label="Signal">
      <div className="card-head">
        <h2>Waiting for event</h2>
        <code className="code-chip">{step.event}</code>
        <span className="spacer" />
        {left !== null ? <span className="muted small">times out in {duration(Math.max(0, left))}</span> : null}
      </div>
      <p className="muted small">
        Every run waiting for this event wakes up with the payload. From a shell:{" "}
        <code>sluice signal {step.event} &apos;&lt;json&gt;&apos;</code>
      </p>
      {canSend ? (
        <form
          className="approval-form"
          onSubmit={(e) => {
            e.preventDefault();
            void send();
          }}
        >
          <div className="field">
            <label htmlFor={id}>Payload (JSON, optional)</label>
            <textarea id={id} value={text} spellCheck={false} onChange={(e) => setText(e.target.value)} />
          </div>
          {problem ? (
            <div className="notice notice-error" role="alert">
              {problem}
            </div>
          ) : null}
          {sent ? <div className="muted small">{sent}</div> : null}
          <div className="actions">
            <button className="btn btn-approve" type="submit" disabled={busy}>
              Send signal
            </button>
          </div>
        </form>
      ) : (
        <p className="muted small">Sending a signal needs the operate scope.</p>
      )}
    </section>
  );
}
