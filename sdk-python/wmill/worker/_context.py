"""What a handler gets: ``ctx`` (the run's metadata, its durable steps, bail/fail, a logger)."""
from datetime import datetime, timedelta, timezone

from ._errors import BailError, FailError
from ._steps import Steps


class WorkflowContext:
    """The context of one claim of a run.

    Attributes: ``run_id`` (stable across attempts: use it in idempotency keys),
    ``workflow_name``, ``attempt`` (1-based), ``step`` (run, sleep, wait_for, child, task, children),
    ``task`` (the task function this run executes, or None for a workflow run), ``version`` (the
    code version the run is pinned to, or None), ``claimed_at`` (when this claim was made) and
    ``due_at`` (when the run became due: its enqueue or run-at time, a sleep, retry backoff or wait
    deadline coming due, a wake-up, a lease reclaimed; None from a server that does not send it),
    both timezone-aware UTC datetimes on the server's clock: ``claimed_at - due_at`` is how long the
    run waited in the queue.
    """

    def __init__(self, execution):
        self._e = execution
        self.run_id = execution.run_id
        self.workflow_name = execution.claim["workflow"]
        self.attempt = execution.claim["attempt"]
        self.task = execution.claim.get("task")
        self.version = execution.claim.get("version")
        self.claimed_at = _utc(execution.claim.get("claimedAt"))
        self.due_at = _utc(execution.claim.get("dueAt"))
        self.step = Steps(execution)

    def bail(self, reason):
        """Ends the run as cancelled, without retry (raises BailError)."""
        err = BailError(reason)
        self._e.set_outcome(err)
        raise err

    def fail(self, error):
        """Ends the run as failed ("dead"), without retry (raises FailError)."""
        err = FailError(error)
        self._e.set_outcome(err)
        raise err

    def log(self, message, level="info"):
        """Writes a line to the run's log (sent within a second, and the rest when the claim ends)."""
        self._e.log(level, message)

    @property
    def lease_lost(self):
        """True once another claim owns the run: stop working, nothing more is written."""
        return self._e.is_lost()


def _utc(epoch_ms):
    """A protocol timestamp (ms since the epoch) as an aware UTC datetime; None when absent."""
    if epoch_ms is None:
        return None
    return _EPOCH + timedelta(milliseconds=epoch_ms)  # exact: no float seconds


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
