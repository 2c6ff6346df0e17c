/** @jsxImportSource hono/jsx */
/**
 * The approval page (hono/jsx, server-rendered, every value escaped by the renderer):
 * the run's context and, while the wait is pending, the form built from the JSON
 * schema given to `waitForApproval({ form })` with Approve and Reject buttons. It
 * works without JavaScript; only its POST acts.
 */
import type { FC, PropsWithChildren } from "hono/jsx";
import { formatMillis } from "../../core/duration.js";
import { decodeValue } from "../../core/serde.js";
import { FIELD_PREFIX, formFields, type FieldSpec } from "../form-fields.js";
import type { ApprovalView } from "./state.js";
import { APPROVAL_CSS_PATH } from "./styles.js";

/** A message shown above the page (the outcome of a POST). */
export interface PageNotice {
  kind: "ok" | "error" | "info";
  text: string;
  problems?: string[];
}

/** What the page renders. */
export interface ApprovalPageProps {
  view: ApprovalView;
  /** Where the form posts (the page's own URL, with its token). */
  action: string;
  /** The run's page in the web UI. */
  runUrl: string;
  now: number;
  /** The approver the link was made for (`getResumeUrls(approver)`), if any. */
  linkApprover: string | null;
  notice?: PageNotice;
  /** Input to show again after a refused POST. */
  input?: Record<string, string>;
}

const TITLES: Record<ApprovalView["state"], string> = {
  pending: "Approval requested",
  approved: "Approved",
  rejected: "Rejected",
  expired: "This approval timed out",
  closed: "This run no longer waits for approval",
  missing: "Approval not found",
};

const json = (v: unknown, max = 4000) => {
  const text = JSON.stringify(v ?? null, null, 2) ?? "null";
  return text.length > max ? `${text.slice(0, max)}\n…` : text;
};
const when = (ms: number | null) =>
  ms === null ? "—" : new Date(ms).toISOString().replace("T", " ").slice(0, 19) + " UTC";

const Layout: FC<PropsWithChildren<{ title: string }>> = ({ title, children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="referrer" content="same-origin" />
      <title>{title} · Sluice</title>
      <link rel="stylesheet" href={APPROVAL_CSS_PATH} />
    </head>
    <body>
      <header>
        <span class="brand-mark" />
        <span class="brand">Sluice</span>
      </header>
      <main>{children}</main>
    </body>
  </html>
);

const Field: FC<{ f: FieldSpec; value: string | undefined }> = ({ f, value }) => {
  const id = `field-${f.name}`;
  const name = FIELD_PREFIX + f.name;
  const current = value ?? f.initial;
  const help = f.description ? <div class="help">{f.description}</div> : null;
  if (f.control === "checkbox") {
    return (
      <div class="field">
        <label class="check" for={id}>
          <input type="checkbox" id={id} name={name} value="true" checked={current === "true"} />
          {f.label}
        </label>
        {help}
      </div>
    );
  }
  const label = (
    <label for={id}>
      {f.label}
      {f.required ? (
        <span class="req" aria-hidden="true">
          *
        </span>
      ) : null}
    </label>
  );
  let control;
  if (f.control === "select") {
    control = (
      <select id={id} name={name} required={f.required}>
        <option value="">Choose…</option>
        {f.options.map((o) => (
          <option value={o.value} selected={o.value === current}>
            {o.label}
          </option>
        ))}
      </select>
    );
  } else if (f.control === "json") {
    control = (
      <textarea id={id} name={name} required={f.required} spellcheck={false}>
        {current}
      </textarea>
    );
  } else {
    const type = f.control === "text" ? "text" : "number";
    control = (
      <input
        type={type}
        id={id}
        name={name}
        value={current}
        required={f.required}
        step={f.control === "number" ? "any" : undefined}
      />
    );
  }
  return (
    <div class="field">
      {label}
      {control}
      {help}
    </div>
  );
};

const RunCard: FC<{ view: ApprovalView; runUrl: string }> = ({ view, runUrl }) => {
  const run = view.run!;
  const done = view.steps.filter((s) => s.key !== view.key);
  return (
    <section class="card">
      <h2>Run</h2>
      <dl>
        <dt>Workflow</dt>
        <dd class="mono">{run.task ? `${run.workflow}:${run.task}` : run.workflow}</dd>
        <dt>Run</dt>
        <dd>
          <a class="mono" href={runUrl}>
            {run.id}
          </a>
        </dd>
        <dt>Status</dt>
        <dd>
          <span class={`badge s-${run.status}`}>{run.status}</span>
        </dd>
        <dt>Started by</dt>
        <dd>{run.createdBy ?? "—"}</dd>
        <dt>Created</dt>
        <dd>{when(run.createdAt)}</dd>
        <dt>Payload</dt>
        <dd>
          <pre>{json(decodeValue(run.payload))}</pre>
        </dd>
      </dl>
      {done.length > 0 ? (
        <>
          <h2 class="spaced">Steps so far</h2>
          <ul class="steps">
            {done.map((s) => (
              <li>
                <span class="kind">{s.kind}</span>
                <span class="mono">{s.key}</span>
                <span
                  class={`badge s-${s.status === "done" ? "succeeded" : s.status === "error" ? "failed" : "waiting"}`}
                >
                  {s.status}
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
};

const DecisionCard: FC<ApprovalPageProps> = ({ view, action, now, linkApprover, input }) => {
  if (view.state === "approved" || view.state === "rejected") {
    const d = view.decision!;
    return (
      <section class="card">
        <h2>Decision</h2>
        <dl>
          <dt>Decision</dt>
          <dd>
            <span class={`badge ${view.state === "approved" ? "s-succeeded" : "s-failed"}`}>{view.state}</span>
          </dd>
          <dt>By</dt>
          <dd>{d.approver ?? "anonymous (link)"}</dd>
          <dt>At</dt>
          <dd>{when(d.at)}</dd>
          {d.value !== null && d.value !== undefined ? (
            <>
              <dt>Form</dt>
              <dd>
                <pre>{json(d.value)}</pre>
              </dd>
            </>
          ) : null}
        </dl>
      </section>
    );
  }
  if (view.state !== "pending") return null;
  const fields = formFields(view.form);
  const left = view.deadline === null ? null : view.deadline - now;
  return (
    <section class="card">
      <h2>Your decision</h2>
      <p class="muted">
        {left !== null
          ? `Decide within ${formatMillis(Math.max(0, Math.floor(left / 1000) * 1000))} (by ${when(view.deadline)}).`
          : null}
        {linkApprover ? ` This link is for ${linkApprover}.` : null}
        {view.pending && !view.pending.selfApproval
          ? ` The person who started this run (${view.run?.createdBy ?? "unknown"}) cannot approve it.`
          : null}
      </p>
      <form method="post" action={action}>
        {fields.map((f) => (
          <Field f={f} value={input?.[f.name]} />
        ))}
        <div class="actions">
          <button class="approve" type="submit" name="decision" value="approve">
            Approve
          </button>
          <button class="reject" type="submit" name="decision" value="reject" formnovalidate>
            Reject
          </button>
        </div>
      </form>
    </section>
  );
};

/** The whole page. */
export const ApprovalPage: FC<ApprovalPageProps> = (props) => {
  const { view, notice } = props;
  const title = TITLES[view.state];
  return (
    <Layout title={title}>
      <h1>{title}</h1>
      <p class="sub">
        {view.run ? (
          <>
            <span class="mono">{view.run.workflow}</span> waits at <span class="mono">{view.key}</span>
          </>
        ) : (
          "The run or its approval does not exist (it may have been deleted by retention)."
        )}
      </p>
      {notice ? (
        <div class={`notice ${notice.kind}`} role={notice.kind === "error" ? "alert" : "status"}>
          {notice.text}
          {notice.problems?.length ? (
            <ul>
              {notice.problems.map((p) => (
                <li>{p}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      {view.run ? <DecisionCard {...props} /> : null}
      {view.run ? <RunCard view={view} runUrl={props.runUrl} /> : null}
    </Layout>
  );
};

/** A page for a link that cannot be used (forged, for another wait, expired). */
export const LinkErrorPage: FC<{ message: string }> = ({ message }) => (
  <Layout title="This link cannot be used">
    <h1>This link cannot be used</h1>
    <div class="notice error" role="alert">
      {message}
    </div>
  </Layout>
);
