/** The app shell: who is signed in, the sidebar, and the pages. */
import { useCallback, useEffect, useState } from "react";
import { Link, Redirect, Route, Switch, useLocation } from "wouter";
import type { ApiMe } from "../../http/api-types";
import { saveToken } from "./api/auth";
import { api, ApiError } from "./api/client";
import { SessionContext } from "./app-context";
import { OverviewPage } from "./pages/OverviewPage";
import { PipelinePage } from "./pages/PipelinePage";
import { PipelinesPage } from "./pages/PipelinesPage";
import { ReleasePage } from "./pages/ReleasePage";
import { ReleasesPage } from "./pages/ReleasesPage";
import { RunPage } from "./pages/RunPage";
import { RunsPage } from "./pages/RunsPage";
import { SchedulesPage } from "./pages/SchedulesPage";
import { SignInPage } from "./pages/SignInPage";
import { TriggersPage } from "./pages/TriggersPage";
import { WorkflowPage } from "./pages/WorkflowPage";
import { WorkflowsPage } from "./pages/WorkflowsPage";

function NavLink({ href, children }: { href: string; children: string }) {
  const [location] = useLocation();
  const on = location === href || location.startsWith(`${href}/`);
  return (
    <Link href={href} className={on ? "nav-on" : ""} aria-current={on ? "page" : undefined}>
      {children}
    </Link>
  );
}

/** See the module comment. */
export function App() {
  const [me, setMe] = useState<ApiMe | null>(null);
  const [authError, setAuthError] = useState<string | null>(null);
  const [checked, setChecked] = useState(false);
  const load = useCallback(() => {
    api<ApiMe>("/api/me")
      .then((m) => {
        setMe(m);
        setAuthError(null);
      })
      .catch((e: ApiError) => {
        setMe(null);
        setAuthError(
          e.status === 401 || e.status === 403 ? (e.code === "AUTH_REQUIRED" ? null : e.message) : e.message,
        );
      })
      .finally(() => setChecked(true));
  }, []);
  useEffect(load, [load]);
  if (!checked) return null;
  if (!me) return <SignInPage error={authError} onSignedIn={load} />;
  const signOut = () => {
    saveToken(null);
    setMe(null);
    load();
  };
  return (
    <SessionContext.Provider value={{ me, signOut }}>
      <div className="shell">
        <aside className="sidebar">
          <div className="sidebar-inner">
            <Link href="/runs" className="brand">
              <span className="brand-mark" /> Sluice
            </Link>
            <nav className="nav">
              <NavLink href="/overview">Overview</NavLink>
              <NavLink href="/runs">Runs</NavLink>
              <NavLink href="/workflows">Workflows</NavLink>
              <NavLink href="/schedules">Schedules</NavLink>
              <NavLink href="/triggers">Triggers</NavLink>
              <NavLink href="/pipelines">Pipelines</NavLink>
              <NavLink href="/releases">Releases</NavLink>
            </nav>
            <span className="spacer" />
            <div className="who">
              <div className="who-name">{me.name}</div>
              <div className="muted small">
                {me.scope}
                {me.auth === "off" ? " · local, no login" : ""}
              </div>
              {me.auth === "tokens" ? (
                <button className="link-btn small" onClick={signOut}>
                  Sign out
                </button>
              ) : null}
            </div>
          </div>
        </aside>
        <main className="main">
          <Switch>
            <Route path="/">
              <Redirect to="/runs" />
            </Route>
            <Route path="/overview" component={OverviewPage} />
            <Route path="/runs" component={RunsPage} />
            <Route path="/runs/:id" component={RunPage} />
            <Route path="/workflows" component={WorkflowsPage} />
            <Route path="/workflows/:name" component={WorkflowPage} />
            <Route path="/schedules" component={SchedulesPage} />
            <Route path="/triggers" component={TriggersPage} />
            <Route path="/pipelines" component={PipelinesPage} />
            <Route path="/pipelines/*" component={PipelinePage} />
            <Route path="/releases" component={ReleasesPage} />
            <Route path="/releases/:id" component={ReleasePage} />
            <Route>
              <div className="page">
                <h1>Not found</h1>
                <p>
                  <Link href="/runs">Back to runs</Link>
                </p>
              </div>
            </Route>
          </Switch>
        </main>
      </div>
    </SessionContext.Provider>
  );
}
