/** Cancel and Retry for a run, with a second click to confirm a cancel. */
import { useState } from "react";
import type { ApiRun } from "../../../http/api-types";
import { api, ApiError, seg } from "../api/client";
import { isFinished } from "../lib/status";

/** See the module comment. */
export function RunActions({ run, onDone }: { run: ApiRun; onDone(): void }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const act = async (action: "cancel" | "retry") => {
    setBusy(true);
    setError(null);
    try {
      await api(`/api/runs/${seg(run.id)}/${action}`, { method: "POST" });
      setConfirming(false);
      onDone();
    } catch (e) {
      setError((e as ApiError).message);
    } finally {
      setBusy(false);
    }
  };
  const canRetry = (run.status === "failed" || run.status === "cancelled") && run.parentId === null;
  return (
    <div className="run-actions">
      {error ? (
        <span className="inline-error" role="alert">
          {error}
        </span>
      ) : null}
      {!isFinished(run.status) ? (
        confirming ? (
          <>
            <button className="btn btn-danger" disabled={busy} onClick={() => void act("cancel")}>
              Confirm cancel
            </button>
            <button className="btn" onClick={() => setConfirming(false)}>
              Keep running
            </button>
          </>
        ) : (
          <button className="btn" onClick={() => setConfirming(true)}>
            Cancel run
          </button>
        )
      ) : null}
      {canRetry ? (
        <button className="btn btn-primary" disabled={busy} onClick={() => void act("retry")}>
          Retry
        </button>
      ) : null}
    </div>
  );
}
