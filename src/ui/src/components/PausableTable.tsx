/**
 * The page of a list of things that can be paused (schedules, triggers): a heading, the list
 * fetched from the API and refreshed live, a table of the columns the page gives, and a Pause /
 * Resume button on each row for sessions that may operate. One component, so both pages keep
 * the same loading, empty, error and pause behaviour.
 */
import { type ReactNode, useState } from "react";
import { api, ApiError } from "../api/client";
import { useLiveRefresh } from "../api/live";
import { useApi } from "../api/use-api";
import { useSession } from "../app-context";
import { LoadError } from "./ErrorBlock";
import { useNow } from "../hooks";

/** One column: its heading and how a row fills its cell. */
export interface Column<T> {
  readonly header: string;
  readonly cell: (row: T, now: number) => ReactNode;
  readonly className?: string;
  /** The cell's tooltip. */
  readonly title?: (row: T) => string;
}

/** What a {@link PausableTable} shows. */
export interface PausableTableProps<T> {
  readonly title: string;
  readonly subtitle: string;
  /** The API list, e.g. `/api/triggers`, answering `{ [field]: T[] }`. */
  readonly path: string;
  readonly field: string;
  readonly pollMs: number;
  /** Shown when the list is empty: how to add one. */
  readonly empty: string;
  readonly columns: ReadonlyArray<Column<T>>;
  /** The row's id, also written as `data-<rowAttr>` on its `<tr>`. */
  readonly rowKey: (row: T) => string;
  readonly rowAttr: string;
  readonly paused: (row: T) => boolean;
  /** The API path that pauses or resumes the row, without the action (`/api/triggers/<id>`). */
  readonly actionPath: (row: T) => string;
  /** Shown below the table (a related list that cannot be paused here). */
  readonly children?: ReactNode;
}

/** See the module comment. */
export function PausableTable<T>(props: PausableTableProps<T>) {
  const list = useApi<Record<string, T[]>>(props.path);
  useLiveRefresh(list.reload, { pollMs: props.pollMs });
  const now = useNow(5000);
  const session = useSession();
  const [error, setError] = useState<string | null>(null);
  const toggle = async (row: T) => {
    setError(null);
    try {
      await api(`${props.actionPath(row)}/${props.paused(row) ? "resume" : "pause"}`, { method: "POST" });
      list.reload();
    } catch (e) {
      setError((e as ApiError).message);
    }
  };
  const rows = list.data?.[props.field];
  return (
    <div className="page">
      <header className="page-head">
        <div>
          <h1>{props.title}</h1>
          <p className="sub">{props.subtitle}</p>
        </div>
      </header>
      {list.error ? <LoadError error={list.error} /> : null}
      {error ? (
        <div className="notice notice-error" role="alert">
          {error}
        </div>
      ) : null}
      <section className="card flush">
        {!rows ? (
          <div className="empty">Loading…</div>
        ) : rows.length === 0 ? (
          <div className="empty">{props.empty}</div>
        ) : (
          <table className="table">
            <thead>
              <tr>
                {props.columns.map((c) => (
                  <th key={c.header}>{c.header}</th>
                ))}
                <th />
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={props.rowKey(row)} {...{ [`data-${props.rowAttr}`]: props.rowKey(row) }}>
                  {props.columns.map((c) => (
                    <td key={c.header} className={c.className} title={c.title?.(row)}>
                      {c.cell(row, now)}
                    </td>
                  ))}
                  <td className="num">
                    {session.me.scope !== "read" ? (
                      <button className="btn btn-sm" onClick={() => void toggle(row)}>
                        {props.paused(row) ? "Resume" : "Pause"}
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {props.children}
    </div>
  );
}
