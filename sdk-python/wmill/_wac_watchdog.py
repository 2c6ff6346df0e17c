"""The Python worker's watchdog: task timeouts kept, and a blocked event loop reported.

Used by both Python hosts: the worker protocol's (``_wac_worker``) and the stdio host bridge
(``_host``, where Sluice fails the task itself and the watchdog only stops its code).
Every claim's code runs on one asyncio event loop (``_wac_worker``). Code that blocks it (a
``time.sleep``, a synchronous HTTP request or a long computation inside an ``async def``) keeps the
loop's own timers from firing: a task past its ``deadline`` would not fail, and the worker's other
runs wait. This thread watches from outside the loop:

- a claim past its ``deadline`` (plus ``grace`` seconds) that the loop has not ended is failed from
  here (TASK_TIMEOUT, the loop's own write); whatever its code returns later is dropped;
- the loop's thread is then sent ``SIGURG``. Its handler raises :class:`TaskStopped` only if the code
  running at that moment belongs to a claim ended by its timeout: that ends a blocking call the
  signal interrupts (``time.sleep``, a socket read, ``select``, a subprocess wait) and frees the
  loop; a computation in C returns first (one that holds the GIL stops this whole process until it
  returns: only a process per run, as Windmill has, could stop it). SIGURG is ignored by default,
  so one that arrives otherwise changes nothing;
- a loop blocked for ``stall`` seconds or more is reported once per stall on stderr, and in the
  run's log when the blocking code is a claim's own.
"""
import asyncio
import ctypes
import signal
import sys
import threading
import time

from . import _runtime

#: The signal that interrupts a timed-out claim's blocking call on the loop's thread.
STOP_SIGNAL = getattr(signal, "SIGURG", None)


class TaskStopped(BaseException):
    """Raised in a timed-out task's code: in its thread (a sync task) or on the loop (an async one,
    by the watchdog's signal). Not an Exception: user code's ``except Exception`` does not swallow it."""


def stop_thread(ex):
    """Stops the thread of its own running a timed-out sync task (``ex.thread``, if any): the
    exception is raised in it at its next Python instruction (a blocking call, e.g. a long
    ``time.sleep`` or a socket read, ends first)."""
    with ex.thread_lock:
        tid = ex.thread
        if tid is not None:
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(tid), ctypes.py_object(TaskStopped))


class Watchdog:
    """Watches ``worker`` (a ``_host.Host``: a ``WacWorker`` or the bridge's host): its runs'
    timeouts (``ex.overdue``, ended by ``worker.expire``) and its loop's liveness. ``who`` starts
    the lines it prints."""

    def __init__(self, worker, period=0.1, grace=0.25, stall=2.0, who="sluice python worker"):
        self.worker = worker
        self.who = who
        self.period = period
        self.grace = grace
        self.stall = stall
        self.beat = time.monotonic()
        self.reported = None  # the beat of the stall last reported
        self.loop_thread = None

    def start(self):
        """Called on the loop's thread (the main thread: signals are handled there) before it runs."""
        self.loop_thread = threading.get_ident()
        if STOP_SIGNAL is not None and hasattr(signal, "pthread_kill"):
            signal.signal(STOP_SIGNAL, self.on_signal)
        self.worker.loop.call_soon(self.tick)
        threading.Thread(target=self.watch, name="sluice-watchdog", daemon=True).start()

    def tick(self):
        self.beat = time.monotonic()
        self.worker.loop.call_later(self.period, self.tick)

    def watch(self):
        while True:
            time.sleep(self.period)
            try:
                self.check()
            except Exception as err:  # noqa: BLE001 - the watchdog outlives a surprise
                print(f"{self.who}: watchdog: {err!r}", file=sys.__stderr__)

    def check(self):
        """One look (on the watchdog's thread): overdue claims fail, a long stall is reported."""
        for ex in tuple(self.worker.execs.values()):
            if ex.overdue(self.grace) and self.worker.expire(ex, off_loop=True) and ex.thread is None:
                self.interrupt()
        stalled = time.monotonic() - self.beat
        if stalled >= self.stall and self.reported != self.beat:
            self.reported = self.beat
            self.report(stalled)

    def interrupt(self):
        if STOP_SIGNAL is not None and hasattr(signal, "pthread_kill") and self.loop_thread is not None:
            signal.pthread_kill(self.loop_thread, STOP_SIGNAL)

    def on_signal(self, signum, frame):
        """On the loop's thread, in the context of the code running there."""
        ex = _runtime.current.get()
        if ex is not None and getattr(ex, "timed_out", False):
            raise TaskStopped()

    def report(self, stalled):
        task = asyncio.current_task(self.worker.loop)
        ex = next((e for e in tuple(self.worker.execs.values()) if task is not None and e.task is task), None)
        who = f"run {ex.id}'s code" if ex is not None else "a run's code"
        text = (f"the event loop has been blocked for {stalled:.1f} s by {who} (a blocking call such as time.sleep "
                "or a synchronous request in an async def): the worker's other runs wait until it returns; await "
                "asyncio.sleep or asyncio.to_thread(...) instead, or make the function a plain def (it runs on a thread)")
        print(f"{self.who}: {text}", file=sys.__stderr__)
        if ex is not None:
            ex.log("warn", text, force=True)
