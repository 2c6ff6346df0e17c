"""One claim of one run: the journal to replay, the key allocator, and the claim's writes."""
import http.client
import random
import sys
import threading
import time

from ._errors import LeaseLost, NonDeterminismError, Parked, SluiceAPIError
from ._log_buffer import LogBuffer, lost_note, refused_lines, retryable, untimed, whole_refusal


def _key(name, n):
    """The key of the ``n``-th durable call named ``name`` in an execution (``name#n`` from the second)."""
    return name if n == 1 else f"{name}#{n}"


# How long a logged line waits in the buffer while the run runs (seconds).
LOG_FLUSH_EVERY = 1.0


def backoff_delay(base, top, n):
    """base * 2^(n-1) with ±20 % jitter, capped at top (seconds; n is the failed try, from 1)."""
    raw = min(top, base * 2 ** (n - 1))
    return min(top, raw * (0.8 + 0.4 * random.random()))


class Execution:
    """The state of one claim, shared by its handler thread and the worker's heartbeats."""

    def __init__(self, client, claim, inline_max, outbox=None):
        self.client = client
        self.outbox = outbox
        self.claim = claim
        self.run_id = claim["runId"]
        self.token = claim["token"]
        self.received = time.monotonic()
        self.inline_max = inline_max
        self.journal = {s["key"]: s for s in claim.get("steps") or []}
        self.counts = {}
        self.position = 0
        self.park = None
        self.outcome = None
        self.permanent = None
        self.logs = LogBuffer()
        self._log_failures = 0  # sends of lines that failed in a row (the next waits longer)
        self._lost_told = False  # stderr was told that this claim's lines are no longer written
        self._log_timer = None  # sends the buffered lines a while after the first
        self._logs_ended = False  # the claim's last lines were sent: later ones are dropped
        self._flush_lock = threading.Lock()  # one send of lines at a time, in order
        self._lock = threading.Lock()
        self._lost = threading.Event()
        self._ended = False

    def end(self):
        """Claims the right to end the claim (its handler returning, or its deadline): True once."""
        with self._lock:
            if self._ended:
                return False
            self._ended = True
            return True

    def now_ms(self):
        """The server's clock: the claim time plus the time elapsed since it arrived."""
        return self.claim["claimedAt"] + int((time.monotonic() - self.received) * 1000)

    def next_key(self, name):
        """The key and position of the next durable call named ``name`` (``name#n`` when repeated)."""
        with self._lock:
            if self.park is not None:
                raise Parked()
            if self._lost.is_set():
                raise LeaseLost()
            n = self.counts[name] = self.counts.get(name, 0) + 1
            pos = self.position
            self.position += 1
        return _key(name, n), pos

    def peek_key(self, name):
        """The key the next durable call named ``name`` will get, without allocating it."""
        with self._lock:
            if self.park is not None:
                raise Parked()
            n = self.counts.get(name, 0) + 1
        return _key(name, n)

    def lookup(self, key, kind, target=None, position=None):
        """The journal entry at ``key`` (None when absent); another kind, or a child of another
        ``target`` (task or workflow) than the one recorded, is non-determinism."""
        with self._lock:
            rec = self.journal.get(key)
        if rec is None:
            return None
        if rec["kind"] != kind:
            raise self.make_permanent(NonDeterminismError(key, rec["kind"], kind, position))
        recorded = rec.get("target")
        if target is not None and recorded is not None and recorded != target:
            raise self.make_permanent(
                NonDeterminismError(key, f"{kind} {recorded!r}", f"{kind} {target!r}", position))
        return rec

    def make_permanent(self, err):
        """Marks ``err`` as failing the run without retry, and returns it."""
        self.permanent = err
        return err

    def save(self, *steps):
        """Checkpoints steps; LeaseLost when the server refused the claim's token."""
        self.write("steps", {"token": self.token, "steps": list(steps)})
        with self._lock:
            for s in steps:
                self.journal[s["key"]] = {**s, "value": s.get("value")}

    def request_park(self, step=None, wake_after_ms=None, children=(), await_children=False):
        """Records that the run must park (written when the handler ends) and raises Parked."""
        with self._lock:
            if self.park is None:
                self.park = {"steps": [], "wakeAfterMs": None, "children": [], "awaitChildren": False}
            if step is not None:
                self.park["steps"].append(step)
            self.park["children"].extend(children)
            if await_children:
                self.park["awaitChildren"] = True
            w = self.park["wakeAfterMs"]
            if wake_after_ms is not None and (w is None or wake_after_ms < w):
                self.park["wakeAfterMs"] = wake_after_ms
        raise Parked()

    def set_outcome(self, exc):
        with self._lock:
            if self.outcome is None:
                self.outcome = exc

    def mark_lost(self):
        self._lost.set()

    def is_lost(self):
        return self._lost.is_set()

    def wait(self, seconds):
        """Waits ``seconds``, or raises LeaseLost as soon as the claim is lost."""
        if self._lost.wait(max(0.0, seconds)):
            raise LeaseLost()

    def log(self, level, message, step_key=None):
        """Buffers a line of the run's log, stamped with the time it was logged (the claim's clock);
        a flush within LOG_FLUSH_EVERY sends it, and the claim's end sends what is left. A lost
        claim's lines are not kept (the server would drop them; stderr says so once)."""
        line = {"level": level, "message": str(message), "ts": self.now_ms()}
        if step_key:
            line["stepKey"] = step_key
        with self._lock:
            if self._lost.is_set():
                self._tell_lost()
                return
            if self._logs_ended:
                return  # the claim has ended: the server would drop the line
            self.logs.add(line)
            if self._log_timer is None:
                self._arm_log_timer(LOG_FLUSH_EVERY)

    def _arm_log_timer(self, delay):
        self._log_timer = threading.Timer(delay, self.flush_logs)
        self._log_timer.daemon = True
        self._log_timer.start()

    def flush_logs(self):
        """Sends the buffered lines; one flush at a time, so lines arrive in order and before the
        claim's end. A send that fails for a reason worth retrying (``_log_buffer.retryable``)
        keeps its lines for a later flush after a growing wait, or, at the claim's end, is retried
        while its lease would last."""
        with self._flush_lock:
            with self._lock:
                lines, dropped = self.logs.take()
                self._log_timer = None
                ended = self._logs_ended
            if not lines:
                return
            deadline = time.monotonic() + self.claim["leaseMs"] / 1000
            attempt = 0
            while True:
                attempt += 1
                try:
                    self._send_logs(lines)
                    self._log_failures = 0
                    return
                except (LeaseLost, SluiceAPIError, OSError, http.client.HTTPException) as err:
                    failure = err
                with self._lock:
                    if isinstance(failure, LeaseLost) or self._lost.is_set():
                        return self._tell_lost()
                    if not retryable(failure):
                        return print(f"sluice worker: run {self.run_id}: {len(lines)} log line(s) not written: "
                                     f"{failure}", file=sys.stderr)
                    if not ended:
                        # Kept for a later flush, ahead of the lines logged meanwhile.
                        self.logs.put_back(lines, dropped)
                        self._log_failures += 1
                        if self._log_timer is None:
                            self._arm_log_timer(backoff_delay(LOG_FLUSH_EVERY, 30.0, self._log_failures))
                        return
                    if time.monotonic() > deadline:
                        return print(f"sluice worker: run {self.run_id}: {len(lines)} log line(s) not written: the "
                                     f"server did not take them within the claim's lease ({failure})", file=sys.stderr)
                print(f"sluice worker: run {self.run_id}: logs failed ({failure}); retrying", file=sys.stderr)
                time.sleep(backoff_delay(0.25, 5.0, attempt))

    def _send_logs(self, lines):
        """Writes lines of the claim; lines the server refuses for their ``ts`` go once more without it."""
        body = {"token": self.token, "attempt": self.claim["attempt"]}
        try:
            answer = self.write("logs", {**body, "lines": lines})
        except SluiceAPIError as err:
            if not whole_refusal(err):
                raise
            print(f"sluice worker: run {self.run_id}: the server refused log lines ({err.message}); sending them "
                  "again without their times", file=sys.stderr)
            self.write("logs", {**body, "lines": untimed(lines)})
            return
        again, why = refused_lines(lines, answer)
        for reason in why:
            print(f"sluice worker: run {self.run_id}: the server refused a log line ({reason}); sending it again "
                  "without its time", file=sys.stderr)
        if again:
            try:
                self.write("logs", {**body, "lines": again})
            except (LeaseLost, SluiceAPIError, OSError, http.client.HTTPException) as err:
                print(f"sluice worker: run {self.run_id}: {len(again)} refused log line(s) not written: {err}",
                      file=sys.stderr)

    def _tell_lost(self):
        """Says once on stderr that this claim's lines are no longer written (``_lock`` held)."""
        if not self._lost_told:
            self._lost_told = True
            print(lost_note(self.run_id), file=sys.stderr)

    def end_logs(self):
        """Sends the claim's last lines before it parks or finishes, after any flush still in flight;
        lines logged afterwards are not sent."""
        with self._lock:
            self._logs_ended = True
            timer = self._log_timer
        if timer is not None:
            timer.cancel()
        self.flush_logs()

    def request(self, op, body):
        """A call of this claim that writes nothing (``resume-urls``); LEASE_LOST marks the claim lost."""
        return self._post(op, body, batched=False)

    def _post(self, op, body, batched=True):
        """One write to this claim's ``op`` route, in the outbox's next batch when there is an
        outbox; a LEASE_LOST answer (to this write alone) marks the claim lost and raises LeaseLost."""
        try:
            if batched and self.outbox is not None:
                return self.outbox.send(op, self.run_id, body)
            return self.client.post(f"/api/worker/runs/{self.run_id}/{op}", body)
        except SluiceAPIError as err:
            if err.code == "LEASE_LOST":
                self.mark_lost()
                raise LeaseLost() from None
            raise

    def write(self, op, body):
        """A fenced write of this claim (steps, children, park, finish, logs), retrying transport failures
        and refused database writes (503) while the lease lasts; LEASE_LOST marks the claim lost."""
        deadline = time.monotonic() + self.claim["leaseMs"] / 1000
        attempt = 0
        while True:
            try:
                return self._post(op, body)
            except SluiceAPIError as err:
                if err.status != 503 or time.monotonic() > deadline or self.is_lost():
                    raise
                failure = err
            except (OSError, http.client.HTTPException) as err:
                if time.monotonic() > deadline or self.is_lost():
                    raise
                failure = err
            attempt += 1
            print(f"sluice worker: run {self.run_id}: {op} failed ({failure}); retrying", file=sys.stderr)
            time.sleep(backoff_delay(0.25, 5.0, attempt))
