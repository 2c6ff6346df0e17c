/** The approval page's stylesheet (served at {@link APPROVAL_CSS_PATH}; the page allows no inline styles or scripts). */

/** Where the stylesheet is served. */
export const APPROVAL_CSS_PATH = "/_sluice/approval.css";

/** The stylesheet: the web UI's palette and type, for a page that works without JavaScript. */
export const APPROVAL_CSS = `
:root { --bg:#f6f6f7; --surface:#fff; --border:#e4e4e7; --text:#18181b; --muted:#71717a; --accent:#4f46e5;
  --ok:#15803d; --ok-bg:#dcfce7; --bad:#b91c1c; --bad-bg:#fee2e2; --warn:#b45309; --warn-bg:#fef3c7; --info-bg:#e0e7ff;
  --sans: ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 15px/1.5 var(--sans); -webkit-font-smoothing: antialiased; }
header { display: flex; align-items: center; gap: 10px; padding: 14px 24px; background: var(--surface); border-bottom: 1px solid var(--border); }
.brand { font-weight: 650; letter-spacing: -0.01em; }
.brand-mark { display: inline-block; width: 14px; height: 14px; border-radius: 4px; background: linear-gradient(135deg, #6366f1, #06b6d4); }
main { max-width: 760px; margin: 32px auto; padding: 0 20px 48px; }
h1 { font-size: 24px; letter-spacing: -0.02em; margin: 0 0 4px; }
.sub { color: var(--muted); margin: 0 0 24px; }
.card { background: var(--surface); border: 1px solid var(--border); border-radius: 12px; padding: 20px 22px; margin-bottom: 16px; }
.card h2.spaced { margin-top: 18px; }
.card h2 { font-size: 13px; text-transform: uppercase; letter-spacing: 0.06em; color: var(--muted); margin: 0 0 14px; font-weight: 600; }
dl { display: grid; grid-template-columns: 140px 1fr; gap: 8px 16px; margin: 0; }
dt { color: var(--muted); }
dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
code, pre, .mono { font-family: var(--mono); font-size: 13px; }
pre { background: #fafafa; border: 1px solid var(--border); border-radius: 8px; padding: 12px; overflow: auto; max-height: 320px; margin: 0; }
.badge { display: inline-flex; align-items: center; gap: 6px; padding: 2px 10px; border-radius: 999px; font-size: 13px; font-weight: 550; }
.badge::before { content: ""; width: 7px; height: 7px; border-radius: 50%; background: currentColor; }
.s-waiting { color: var(--warn); background: var(--warn-bg); } .s-succeeded { color: var(--ok); background: var(--ok-bg); }
.s-failed { color: var(--bad); background: var(--bad-bg); } .s-running { color: #1d4ed8; background: #dbeafe; }
.s-pending, .s-cancelled { color: #52525b; background: #f4f4f5; }
.steps { list-style: none; padding: 0; margin: 0; }
.steps li { display: flex; gap: 10px; align-items: baseline; padding: 5px 0; border-top: 1px solid #f4f4f5; }
.steps li:first-child { border-top: 0; }
.steps .kind { color: var(--muted); font-size: 12px; width: 64px; flex: none; }
.field { margin-bottom: 16px; }
label { display: block; font-weight: 550; margin-bottom: 6px; }
.req { color: var(--bad); margin-left: 2px; }
.help { color: var(--muted); font-size: 13px; margin-top: 4px; }
input[type=text], input[type=number], select, textarea { width: 100%; font: inherit; padding: 9px 11px; border: 1px solid #d4d4d8; border-radius: 8px; background: #fff; color: inherit; }
textarea { font-family: var(--mono); font-size: 13px; min-height: 90px; }
input:focus, select:focus, textarea:focus { outline: 2px solid #c7d2fe; border-color: var(--accent); }
.check { display: flex; gap: 8px; align-items: center; font-weight: 400; }
.actions { display: flex; gap: 10px; margin-top: 20px; }
button { font: inherit; font-weight: 600; border-radius: 8px; padding: 10px 18px; cursor: pointer; border: 1px solid transparent; }
.approve { background: var(--ok); color: #fff; } .approve:hover { background: #166534; }
.reject { background: #fff; color: var(--bad); border-color: #fecaca; } .reject:hover { background: var(--bad-bg); }
.notice { border-radius: 10px; padding: 12px 16px; margin-bottom: 16px; border: 1px solid; }
.notice.ok { background: var(--ok-bg); border-color: #bbf7d0; color: #14532d; }
.notice.error { background: var(--bad-bg); border-color: #fecaca; color: #7f1d1d; }
.notice.info { background: var(--info-bg); border-color: #c7d2fe; color: #312e81; }
.notice ul { margin: 6px 0 0; padding-left: 20px; }
.muted { color: var(--muted); }
a { color: var(--accent); }
`;
