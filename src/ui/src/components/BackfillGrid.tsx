/**
 * The backfills of one pipeline folder, newest first: each with its status, its summary
 * and a grid of one cell per partition (coloured by state; a started partition links to
 * its plan run). Refreshed live while the page is open. With the operate scope, a running
 * backfill has a Cancel button (graceful: running steps finish) and a failed or cancelled
 * one a Resume button (a new backfill of only what did not succeed).
 */
import { useState } from "react";
import { Link } from "wouter";
import type { BackfillProgress } from "../../../pipeline/runtime/backfill-progress";
import { api, type ApiError, seg } from "../api/client";
import { useLiveRefresh } from "../api/live";
import { useApi } from "../api/use-api";
import { gridCells, gridSummary } from "../lib/backfill-grid";
import { StatusBadge } from "./StatusBadge";

const ACTIVE = new Set(["pending", "running", "waiting"]);

/** Cancel / Resume of one backfill, with the outcome as a status line. */
function BackfillActions({ b, reload }: { b: BackfillProgress; reload: () => void }) {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string; id?: string } | null>(null);
  const post = async (verb: "cancel" | "resume") => {
    setBusy(true);
    setMessage(null);
    try {
      const res = await api<{ id: string }>(`/api/pipelines/backfills/${seg(b.id)}/${verb}`, { method: "POST" });
      setMessage(
        verb === "cancel"
          ? { ok: true, text: "Cancelling: no new step starts, running steps finish first" }
          : { ok: true, text: "Resumed as a new backfill of what did not succeed", id: res.id },
      );
      reload();
    } catch (e) {
      setMessage({ ok: false, text: (e as ApiError).message });
    } finally {
      setBusy(false);
    }
  };
  const canCancel = ACTIVE.has(b.status);
  const canResume = b.status === "failed" || b.status === "cancelled";
  return (
    <>
      {canCancel ? (
        <button className="btn btn-sm" disabled={busy} onClick={() => void post("cancel")}>
          Cancel backfill
        </button>
      ) : null}
      {canResume ? (
        <button className="btn btn-sm" disabled={busy} onClick={() => void post("resume")}>
          Resume backfill
        </button>
      ) : null}
      {message ? (
        <span className={`notice ${message.ok ? "notice-ok" : "notice-error"}`} role="status">
          {message.text}{" "}
          {message.id ? (
            <Link href={`/runs/${seg(message.id)}`} className="mono">
              {message.id}
            </Link>
          ) : null}
        </span>
      ) : null}
    </>
  );
}

/** See the module comment. */
export function BackfillGrid({ folder, canOperate = false }: { folder: string; canOperate?: boolean }) {
  const list = useApi<{ backfills: BackfillProgress[] }>(`/api/pipelines/backfills?folder=${seg(folder)}`);
  useLiveRefresh(list.reload, { pollMs: 2000 });
  const backfills = list.data?.backfills ?? [];
  return (
    <section className="card" aria-label="Backfills">
      <div className="card-head">
        <h2>Backfills</h2>
      </div>
      {backfills.length === 0 ? (
        <div className="empty small">
          No backfills yet: start one with <span className="mono">sluice pipeline backfill {folder} …</span>
        </div>
      ) : (
        backfills.map((b) => (
          <div key={b.id} className="pl-backfill" data-backfill={b.id}>
            <div className="small">
              <StatusBadge status={b.status} small />{" "}
              <Link href={`/runs/${seg(b.id)}`} className="mono">
                {b.id}
              </Link>{" "}
              <span className="muted">
                {b.scheme ?? ""} · {gridSummary(b)}
              </span>{" "}
              {canOperate ? <BackfillActions b={b} reload={list.reload} /> : null}
            </div>
            <div className="pl-grid" role="list" aria-label={`Partitions of backfill ${b.id}`}>
              {gridCells(b).map((c) =>
                c.run ? (
                  <Link
                    key={c.partition}
                    href={`/runs/${seg(c.run)}`}
                    className={`pl-cell ${c.className}`}
                    title={c.title}
                    role="listitem"
                    data-state={c.state}
                  />
                ) : (
                  <span
                    key={c.partition}
                    className={`pl-cell ${c.className}`}
                    title={c.title}
                    role="listitem"
                    data-state={c.state}
                  />
                ),
              )}
            </div>
          </div>
        ))
      )}
    </section>
  );
}
