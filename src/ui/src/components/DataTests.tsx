/**
 * The data tests of a run's managed lake write (`lib/data-test-outcomes.ts`): each test with
 * pass or fail, its offending rows and a few examples, for a published slice and for one its
 * tests kept from being published.
 */
import type { DataTestRow } from "../lib/data-test-outcomes";

/** See the module comment. */
export function DataTests({ rows }: { rows: readonly DataTestRow[] }) {
  const failed = rows.filter((r) => !r.passed).length;
  return (
    <section className="card flush" aria-label="Data tests">
      <div className="card-head pad-head">
        <h2>Data tests</h2>
        <span className="muted small">
          {failed ? `${failed} of ${rows.length} failed: the slice was not published` : `${rows.length} passed`}
        </span>
      </div>
      <table className="table">
        <thead>
          <tr>
            <th>Test</th>
            <th>Outcome</th>
            <th>Offending rows</th>
            <th>Examples</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i} data-test-outcome={r.passed ? "pass" : "fail"}>
              <td className="mono">{r.test}</td>
              <td>
                <span className={`chip ${r.passed ? "chip-ok" : "chip-err"}`}>{r.passed ? "pass" : "fail"}</span>
              </td>
              <td>{r.offending}</td>
              <td className="mono small">
                {r.error ?? (r.examples.length ? r.examples.map((e) => JSON.stringify(e)).join(", ") : "—")}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
