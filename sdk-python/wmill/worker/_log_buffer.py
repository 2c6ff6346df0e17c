"""A claim's log lines not yet written, and the rules both Python workers apply when a log
write fails (``wmill.worker``'s executions and the ``@workflow`` host, ``wmill._wac_worker``).

- A send that fails for a reason worth retrying (no answer, a 5xx or 429: the server or a
  proxy in front of it cannot take the lines now) gives its lines back to the buffer, ahead of
  those logged since, for a later send.
- The buffer holds at most ``MAX_BUFFERED_LINES``: past it the oldest lines are dropped and
  counted, and the next send starts with one marker line saying how many.
- A line the server refuses for its own fields (``refused`` in the answer: a ``ts`` too far
  ahead of its clock) is sent once more without ``ts`` (the server stamps the time it receives
  it); a server from before per-line refusals refuses the whole request with 400
  ``INVALID_BODY``, whose lines are then sent once more without times.
- The lines of a claim whose lease is lost are not sent at all (the server would drop them).
"""
import http.client

from ._errors import SluiceAPIError

#: The most lines a claim keeps while the server cannot take them.
MAX_BUFFERED_LINES = 10_000


class LogBuffer:
    """Lines oldest first, and how many were dropped since the last send. Not thread-safe:
    its owner's lock guards it."""

    def __init__(self, limit=None):
        self.limit = limit or MAX_BUFFERED_LINES
        self.lines = []
        self.dropped = 0

    def __len__(self):
        return len(self.lines)

    def add(self, line):
        self.lines.append(line)
        self._trim()

    def take(self):
        """Empties the buffer: ``(lines, dropped)``, a marker line first when some were dropped."""
        lines, dropped = self.lines, self.dropped
        self.lines, self.dropped = [], 0
        if dropped and lines:
            lines = [dropped_marker(dropped, self.limit, lines[0].get("ts"))] + lines
        return lines, dropped

    def put_back(self, lines, dropped):
        """Gives back the lines of a send that failed (as ``take`` gave them) ahead of newer ones."""
        if dropped and lines:
            lines = lines[1:]  # the marker: made again by the next take
        self.lines = list(lines) + self.lines
        self.dropped += dropped
        self._trim()

    def _trim(self):
        over = len(self.lines) - self.limit
        if over > 0:
            del self.lines[:over]
            self.dropped += over


def dropped_marker(n, limit, ts):
    line = {"level": "warn", "message": f"sluice: {n} log line(s) dropped here: the server could not take them "
                                        f"for a while and the worker keeps at most {limit}"}
    if ts is not None:
        line["ts"] = ts
    return line


def retryable(err):
    """A failed send of lines worth trying again: no answer, or a 5xx or 429 answer."""
    if isinstance(err, SluiceAPIError):
        return err.status >= 500 or err.status == 429
    return isinstance(err, (OSError, http.client.HTTPException))


def whole_refusal(err):
    """A 400 for the whole request: a server from before per-line refusals refused a line's fields."""
    return isinstance(err, SluiceAPIError) and err.status == 400 and err.code == "INVALID_BODY"


def untimed(lines):
    """The lines without ``ts`` (the server stamps each with the time it receives it)."""
    return [{k: v for k, v in line.items() if k != "ts"} for line in lines]


def refused_lines(lines, answer):
    """``(lines to send again without ts, the server's reasons)`` from an answer's ``refused``."""
    again, why = [], []
    for r in (answer or {}).get("refused") or []:
        i = r.get("line")
        why.append(r.get("message", ""))
        if isinstance(i, int) and 0 <= i < len(lines) and "ts" in lines[i]:
            again.append(lines[i])
    return untimed(again), why


def lost_note(run_id):
    return (f"sluice worker: run {run_id}: this claim's lease is lost (the run was cancelled, or claimed again after "
            "its lease expired): its log lines from here on are not written")
