/** A run's "Started by" (`lib/started-by.ts`): the person, or what started it, linked to the run that did. */
import { Link } from "wouter";
import type { ApiRun } from "../../../http/api-types";
import { seg } from "../api/client";
import { startedBy } from "../lib/started-by";

/** See the module comment. */
export function StartedBy({ run }: { run: Pick<ApiRun, "id" | "createdBy" | "payload" | "parentId"> }) {
  const s = startedBy(run);
  if (s.person) return <>{s.label}</>;
  return (
    <span className="muted" data-started-by={s.label}>
      {s.run ? <Link href={`/runs/${seg(s.run)}`}>{s.label}</Link> : s.label}
    </span>
  );
}
