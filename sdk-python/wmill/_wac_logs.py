"""The log lines of the ``@workflow`` host's claims: what a claim's code prints becomes its log
lines (``ClaimLogs``, installed as ``sys.stdout``/``sys.stderr``), and the host sends each claim's
buffered lines through the outbox (``LogWrites``), with the rules of ``worker/_log_buffer.py`` when
a write fails; a claim's park or finish is written after its last lines (``LogWrites.end_logs``)."""
import sys
import time

from . import _host, _runtime
from ._wac_claim import Claim
from .worker._errors import SluiceAPIError
from .worker._execution import LOG_FLUSH_EVERY, backoff_delay
from .worker._log_buffer import refused_lines, retryable, untimed, whole_refusal


class ClaimLogs(_host._LogRouter):
    """``sys.stdout``/``sys.stderr``: lines printed by a claim's code become its log lines."""

    def write(self, text):
        ex = _runtime.current.get()
        if not isinstance(ex, Claim):
            return self.fallback.write(text)
        with self.lock:
            buf = self.buffers.get(ex.id, "") + text
            *lines, rest = buf.split("\n")
            self.buffers[ex.id] = rest
        for line in lines:
            ex.log(self.level, line)
        return len(text)

    def flush_claim(self, ex):
        with self.lock:
            rest = self.buffers.pop(ex.id, "")
        if rest:
            ex.log(self.level, rest)



class LogWrites:
    """The host's part in sending its claims' lines (mixed into ``WacWorker``: ``loop``, ``outbox``,
    ``lease``). While a claim runs its lines are sent within a second; a send worth retrying gives
    them back for a later send. At its park or finish (``end_logs``) the claim's last lines are
    sent first, after every send of its lines still in flight, and retried until the lease would
    have run out, as ``wmill.worker`` and the Go SDK do: only then is the park or finish written,
    so that it never overtakes lines (the server drops a line of a claim that has ended)."""

    def logs_buffered(self, ex, delay=LOG_FLUSH_EVERY):
        """A first line is in ``ex``'s log buffer (from any thread): the loop sends the buffer
        within LOG_FLUSH_EVERY (``delay``), so ``sluice logs --run`` follows the run. The claim's
        last lines go with ``end_logs``."""
        self.loop.call_soon_threadsafe(self.loop.call_later, delay, self.flush_logs, ex)

    def flush_logs(self, ex):
        if not ex.ended and ex.logs_end is None:  # else its end sends them
            self.send_logs(ex)

    def send_logs(self, ex):
        lines, dropped = ex.take_logs()
        if lines:
            self.submit_logs(ex, lines, lambda r, e: self.logs_written(ex, lines, dropped, r, e))

    def submit_logs(self, ex, lines, done):
        """Sends lines of ``ex``; ``done(answer, error)`` on the sender thread. Counted until
        answered, so that the claim's end waits for them."""
        with ex.log_lock:
            ex.logs_sending += 1

        def answered(answer, error):
            try:
                done(answer, error)
            finally:
                self.log_write_answered(ex)

        self.post_lines(ex, lines, answered)

    def post_lines(self, ex, lines, done):
        self.outbox.submit("logs", ex.id, {"token": ex.token, "attempt": ex.claim.get("attempt", 1), "lines": lines},
                           done)

    def logs_written(self, ex, lines, dropped, answer, error):
        """A log write of ``ex`` is answered (on the sender thread); see ``worker/_log_buffer.py``:
        a line refused for its ``ts`` goes once more without it, lines of a send worth retrying go
        back to the buffer for a later flush (after a growing wait; at the claim's end its last
        send takes them), a lost claim's lines are not sent again."""
        if error is None:
            ex.log_failures = 0
            self.resend_refused(ex, lines, answer)
        elif isinstance(error, SluiceAPIError) and error.code == "LEASE_LOST":
            ex.lose()
        elif whole_refusal(error):
            note(ex, f"the server refused log lines ({error.message}); sending them again without their times")
            self.submit_logs(ex, untimed(lines), lambda r, e: self.again_written(ex, lines, e))
        elif retryable(error) and (ex.logs_end is not None or not ex.ended):
            if ex.put_back_logs(lines, dropped) and ex.logs_end is None:
                self.logs_buffered(ex, backoff_delay(LOG_FLUSH_EVERY, 30.0, ex.log_failures))
        else:
            note(ex, f"{len(lines)} log line(s) not written ({error})")

    def resend_refused(self, ex, lines, answer):
        retimed, why = refused_lines(lines, answer)
        for reason in why:
            note(ex, f"the server refused a log line ({reason}); sending it again without its time")
        if retimed:
            self.submit_logs(ex, retimed, lambda r, e: self.again_written(ex, retimed, e))

    def again_written(self, ex, lines, error):
        if error is not None:
            note(ex, f"{len(lines)} log line(s) not written ({error})")

    # -- the claim's last lines -------------------------------------------------------------

    def end_logs(self, ex, then):
        """Sends the claim's last lines, then calls ``then()`` (which writes its park or finish),
        on whichever thread answered last. Lines logged meanwhile are not sent."""
        self.ending.add(ex.id)  # before a write answered on the sender thread can end it
        with ex.log_lock:
            go = ex.logs_sending == 0
            ex.logs_end = {"then": then, "deadline": time.monotonic() + self.lease, "attempt": 0, "busy": go}
        if go:
            self.send_last(ex)

    def log_write_answered(self, ex):
        """A write of ``ex``'s lines is answered: the claim's end, if it waits, goes on once none is in flight."""
        with ex.log_lock:
            ex.logs_sending -= 1
            end = ex.logs_end
            go = end is not None and ex.logs_sending == 0 and not end["busy"]
            if go:
                end["busy"] = True
        if go:
            self.send_last(ex)

    def send_last(self, ex):
        """The claim's end: sends what its buffer holds (lines given back by failed sends first),
        until it is empty; then the park or finish."""
        lines, dropped = ex.take_logs()
        if not lines or ex.lost:
            return self.logs_ended(ex)
        self.post_lines(ex, lines, lambda r, e: self.last_written(ex, lines, dropped, r, e))

    def last_written(self, ex, lines, dropped, answer, error):
        end = ex.logs_end
        if error is None:
            ex.log_failures = 0
            retimed, why = refused_lines(lines, answer)
            for reason in why:
                note(ex, f"the server refused a log line ({reason}); sending it again without its time")
            if not retimed:
                return self.send_last(ex)
            return self.post_lines(ex, retimed, lambda r, e: (self.again_written(ex, retimed, e), self.send_last(ex)))
        if isinstance(error, SluiceAPIError) and error.code == "LEASE_LOST":
            ex.lose()
            return self.logs_ended(ex)
        if whole_refusal(error):
            note(ex, f"the server refused log lines ({error.message}); sending them again without their times")
            again = untimed(lines)
            return self.post_lines(ex, again, lambda r, e: (self.again_written(ex, again, e), self.send_last(ex)))
        if not retryable(error):
            note(ex, f"{len(lines)} log line(s) not written ({error})")
            return self.send_last(ex)
        if time.monotonic() > end["deadline"]:
            note(ex, f"{len(lines)} log line(s) not written: the server did not take them within the claim's "
                     f"lease ({error})")
            return self.logs_ended(ex)
        end["attempt"] += 1
        ex.put_back_logs(lines, dropped)
        note(ex, f"logs failed ({error}); retrying")
        self.loop.call_soon_threadsafe(self.loop.call_later, backoff_delay(0.25, 5.0, end["attempt"]),
                                       self.send_last, ex)

    def logs_ended(self, ex):
        """The claim's last lines are written (or given up): its park or finish goes now."""
        with ex.log_lock:
            end, ex.logs_end = ex.logs_end, None
        self.ending.discard(ex.id)
        if end is not None:
            end["then"]()


def note(ex, text):
    print(f"sluice python worker: run {ex.id}: {text}", file=sys.__stderr__)
