"""The log lines of the ``@workflow`` host's claims: what a claim's code prints becomes its log
lines (``ClaimLogs``, installed as ``sys.stdout``/``sys.stderr``), and the host sends each claim's
buffered lines through the outbox (``LogWrites``), with the rules of ``worker/_log_buffer.py`` when
a write fails."""
import sys

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
    """The host's part in sending its claims' lines (mixed into ``WacWorker``: ``loop``, ``outbox``)."""

    def logs_buffered(self, ex, delay=LOG_FLUSH_EVERY):
        """A first line is in ``ex``'s log buffer (from any thread): the loop sends the buffer
        within LOG_FLUSH_EVERY (``delay``), so ``sluice logs --run`` follows the run. The loop also sends the
        claim's last lines (``finish``, ``park``), so the writes of one claim keep their order."""
        self.loop.call_soon_threadsafe(self.loop.call_later, delay, self.flush_logs, ex)

    def flush_logs(self, ex):
        if not ex.ended:  # else its end sent them
            self.send_logs(ex)

    def send_logs(self, ex):
        lines, dropped = ex.take_logs()
        if lines:
            self.submit_logs(ex, lines, lambda r, e: self.logs_written(ex, lines, dropped, r, e))

    def submit_logs(self, ex, lines, done):
        self.outbox.submit("logs", ex.id, {"token": ex.token, "attempt": ex.claim.get("attempt", 1), "lines": lines},
                           done)

    def logs_written(self, ex, lines, dropped, answer, error):
        """A log write of ``ex`` is answered (on the sender thread); see ``worker/_log_buffer.py``:
        a line refused for its ``ts`` goes once more without it, lines of a send worth retrying go
        back to the buffer for a later flush (after a growing wait) while the claim runs, a lost
        claim's lines are not sent again."""
        def note(text):
            print(f"sluice python worker: run {ex.id}: {text}", file=sys.__stderr__)

        def again(retimed):
            self.submit_logs(ex, retimed, lambda r, e: e is None or note(f"{len(retimed)} log line(s) not written ({e})"))

        if error is None:
            ex.log_failures = 0
            retimed, why = refused_lines(lines, answer)
            for reason in why:
                note(f"the server refused a log line ({reason}); sending it again without its time")
            if retimed:
                again(retimed)
        elif isinstance(error, SluiceAPIError) and error.code == "LEASE_LOST":
            ex.lose()
        elif whole_refusal(error):
            note(f"the server refused log lines ({error.message}); sending them again without their times")
            again(untimed(lines))
        elif retryable(error) and not ex.ended:
            if ex.put_back_logs(lines, dropped):
                self.logs_buffered(ex, backoff_delay(LOG_FLUSH_EVERY, 30.0, ex.log_failures))
        else:
            note(f"{len(lines)} log line(s) not written ({error})")
