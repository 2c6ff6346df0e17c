/**
 * A pending approval on the run page: the form built from its JSON schema (the same
 * field model as the server's approval page) and Approve / Reject, decided as the
 * signed-in identity.
 */
import { useState } from "react";
import type { ApiPendingApproval, ApiRun } from "../../../http/api-types";
import { formFields, formValueFromInput, type FieldSpec } from "../../../http/form-fields";
import { api, ApiError, seg } from "../api/client";
import { duration } from "../lib/format";

function Field({ f, value, onChange }: { f: FieldSpec; value: string; onChange(v: string): void }) {
  const id = `approval-${f.name}`;
  if (f.control === "checkbox") {
    return (
      <div className="field">
        <label className="check" htmlFor={id}>
          <input
            id={id}
            type="checkbox"
            checked={value === "true"}
            onChange={(e) => onChange(e.target.checked ? "true" : "")}
          />
          {f.label}
        </label>
        {f.description ? <div className="help">{f.description}</div> : null}
      </div>
    );
  }
  let control;
  if (f.control === "select") {
    control = (
      <select id={id} value={value} required={f.required} onChange={(e) => onChange(e.target.value)}>
        <option value="">Choose…</option>
        {f.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    );
  } else if (f.control === "json") {
    control = (
      <textarea
        id={id}
        value={value}
        required={f.required}
        spellCheck={false}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  } else {
    control = (
      <input
        id={id}
        type={f.control === "text" ? "text" : "number"}
        step={f.control === "number" ? "any" : undefined}
        value={value}
        required={f.required}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  }
  return (
    <div className="field">
      <label htmlFor={id}>
        {f.label}
        {f.required ? <span className="req">*</span> : null}
      </label>
      {control}
      {f.description ? <div className="help">{f.description}</div> : null}
    </div>
  );
}

/** See the module comment. */
export function ApprovalPanel({
  run,
  approval,
  me,
  onDecided,
  now,
}: {
  run: ApiRun;
  approval: ApiPendingApproval;
  me: string | null;
  onDecided(): void;
  now: number;
}) {
  const fields = formFields(approval.form);
  const [input, setInput] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map((f) => [f.name, f.initial])),
  );
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<{ message: string; problems: string[] } | null>(null);
  const selfBlocked = !approval.selfApproval && me !== null && me === run.createdBy;
  const decide = async (approve: boolean) => {
    setProblem(null);
    let value: unknown;
    if (approve) {
      const parsed = formValueFromInput(approval.form, input);
      if (parsed.problems.length) return setProblem({ message: "Fix the form:", problems: parsed.problems });
      value = approval.form ? parsed.value : undefined;
    }
    setBusy(true);
    try {
      await api(`/api/runs/${seg(run.id)}/approvals/${seg(approval.key)}`, {
        method: "POST",
        body: { approve, ...(value === undefined ? {} : { value }) },
      });
      onDecided();
    } catch (e) {
      const err = e as ApiError;
      setProblem({ message: err.message, problems: err.problems ?? [] });
    } finally {
      setBusy(false);
    }
  };
  const left = approval.deadline ? new Date(approval.deadline).getTime() - now : null;
  return (
    <section className="card card-approval" aria-label="Approval">
      <div className="card-head">
        <h2>Waiting for approval</h2>
        <code className="code-chip">{approval.key}</code>
        <span className="spacer" />
        {left !== null ? <span className="muted small">times out in {duration(Math.max(0, left))}</span> : null}
      </div>
      {!approval.selfApproval ? (
        <p className="muted small">Self-approval is off: {run.createdBy ?? "the creator"} cannot approve this run.</p>
      ) : null}
      <form
        className="approval-form"
        onSubmit={(e) => {
          e.preventDefault();
          void decide(true);
        }}
      >
        {fields.map((f) => (
          <Field
            key={f.name}
            f={f}
            value={input[f.name] ?? ""}
            onChange={(v) => setInput((prev) => ({ ...prev, [f.name]: v }))}
          />
        ))}
        {problem ? (
          <div className="notice notice-error" role="alert">
            {problem.message}
            {problem.problems.length ? (
              <ul>
                {problem.problems.map((p) => (
                  <li key={p}>{p}</li>
                ))}
              </ul>
            ) : null}
          </div>
        ) : null}
        <div className="actions">
          <button className="btn btn-approve" type="submit" disabled={busy || selfBlocked}>
            Approve
          </button>
          <button
            className="btn btn-reject"
            type="button"
            disabled={busy || selfBlocked}
            onClick={() => void decide(false)}
          >
            Reject
          </button>
          {me ? <span className="muted small">as {me}</span> : null}
        </div>
      </form>
    </section>
  );
}
