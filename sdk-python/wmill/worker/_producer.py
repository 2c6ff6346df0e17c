"""Starting runs and sending signals from Python (any process: a worker, a script, a web app)."""
from ._http import client_from_env


def enqueue(workflow, payload=None, *, id=None, run_at=None, max_attempts=None, concurrency=None, client=None):
    """Creates a run of ``workflow`` with a JSON-encodable payload on the server named by
    SLUICE_URL; returns ``{"id", "deduplicated"}``. ``id`` names the run (the same id, workflow
    and payload return the existing run); ``run_at``: an aware ``datetime`` before which it does
    not start; ``max_attempts`` counts the first attempt; ``concurrency``: ``{"key", "limit",
    "windowMs"?}``, at most ``limit`` runs sharing ``key`` run at once (honoured at claim)."""
    body = {"workflow": workflow, "payload": payload}
    if id is not None:
        body["id"] = id
    if run_at is not None:
        if run_at.tzinfo is None:
            raise ValueError("sluice: enqueue(run_at=) needs a timezone-aware datetime")
        body["runAt"] = run_at.isoformat()
    if max_attempts is not None:
        if max_attempts < 1:
            raise ValueError("sluice: enqueue(max_attempts=) must be at least 1 (it counts the first attempt)")
        body["retries"] = max_attempts - 1
    if concurrency is not None:
        if not concurrency.get("key") or int(concurrency.get("limit") or 0) < 1:
            raise ValueError('sluice: enqueue(concurrency=) needs {"key": ..., "limit": 1 or more}')
        body["concurrency"] = concurrency
    out = (client or client_from_env()).post("/api/runs", body)
    return {"id": out["run"]["id"], "deduplicated": bool(out.get("deduplicated"))}


def signal(event, payload=None, *, client=None):
    """Wakes every run waiting on ``event`` (``ctx.step.wait_for``) with a JSON-encodable payload;
    returns how many it woke."""
    out = (client or client_from_env()).post("/api/signals", {"event": event, "payload": payload})
    return int(out.get("woke", 0))
