/**
 * The backfills of one pipeline folder, newest first: each with its status, its summary
 * and a grid of one cell per partition (coloured by state; a started partition links to
 * its plan run). Refreshed live while the page is open.
 */
import { Link } from "wouter";
import type { BackfillProgress } from "../../../pipeline/runtime/backfill-progress";
import { seg } from "../api/client";
import { useLiveRefresh } from "../api/live";
import { useApi } from "../api/use-api";
import { gridCells, gridSummary } from "../lib/backfill-grid";
import { StatusBadge } from "./StatusBadge";

/** See the module comment. */
export function BackfillGrid({ folder }: { folder: string }) {
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
              </span>
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
