/**
 * The schedule and webhook rows of the pipelines' `pipeline.json` (`GET /api/triggers`
 * `pipelineTriggers`): each step, what fires it, its next run (on the schedule's clock, its zone
 * named), the file that declares it and its pipeline.
 * Nothing to pause here: a step's schedule is paused on the Schedules page.
 */
import { Link } from "wouter";
import type { ApiStepTrigger } from "../../../http/api-types";
import { useApi } from "../api/use-api";
import { useNow } from "../hooks";
import { relative, timestamp, zonedTimestamp } from "../lib/format";

/** See the module comment. */
export function StepTriggers() {
  const list = useApi<{ pipelineTriggers: ApiStepTrigger[] }>("/api/triggers");
  const rows = list.data?.pipelineTriggers ?? [];
  const now = useNow(30_000);
  if (rows.length === 0) return null;
  return (
    <section className="card flush" aria-label="Pipeline schedules and webhooks">
      <div className="card-head pad-head">
        <h2>Pipeline schedules and webhooks</h2>
        <span className="spacer" />
        <span className="muted small">
          Declared in pipeline.json; a schedule pauses on <Link href="/schedules">Schedules</Link>.
        </span>
      </div>
      <table className="table">
        <thead>
          <tr>
            <th>Step</th>
            <th>Fires on</th>
            <th>Next run</th>
            <th>Declared in</th>
            <th>Pipeline</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((t) => (
            <tr key={`${t.kind}:${t.script}`} data-step-trigger={`${t.kind}:${t.script}`}>
              <td className="strong">
                {t.script} <span className="muted small">{t.kind}</span>
              </td>
              <td>
                <code>{t.detail}</code>
              </td>
              <td title={t.nextAt ? `${timestamp(t.nextAt)} in your time zone` : undefined}>
                {t.paused ? (
                  <span className="muted">paused</span>
                ) : t.nextAt ? (
                  `${relative(t.nextAt, now)} · ${zonedTimestamp(t.nextAt, t.schedule?.timezone)}`
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
              <td>
                <code>{t.configuredIn}</code>
              </td>
              <td>
                <Link href={`/pipelines/${t.folder}`}>{t.folder || "."}</Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
