/** Asks for an API token (servers with auth on); it is kept in this browser only. */
import { useState } from "react";
import { saveToken } from "../api/auth";

/** See the module comment. */
export function SignInPage({ error, onSignedIn }: { error: string | null; onSignedIn(): void }) {
  const [token, setToken] = useState("");
  return (
    <div className="signin">
      <form
        className="card signin-card"
        onSubmit={(e) => {
          e.preventDefault();
          saveToken(token.trim());
          onSignedIn();
        }}
      >
        <div className="brand brand-lg">
          <span className="brand-mark" /> Sluice
        </div>
        <h1>Sign in with an API token</h1>
        <p className="muted">
          Create one with <code>sluice token create --name you --scope operate</code>. It stays in this browser.
        </p>
        <input
          type="password"
          autoComplete="off"
          placeholder="sluice_…"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          aria-label="API token"
        />
        {error ? <div className="notice notice-error">{error}</div> : null}
        <button className="btn btn-primary" type="submit" disabled={!token.trim()}>
          Sign in
        </button>
      </form>
    </div>
  );
}
