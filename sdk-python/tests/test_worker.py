"""Unit tests of wmill.worker (the worker-protocol client) against a fake server: keys and
replay, non-determinism, a lease lost mid-run, step retries, outcomes. Run with
``python3 -m unittest discover -s sdk-python/tests -t sdk-python`` (npm test does)."""
import json
import threading
from datetime import datetime, timedelta, timezone
import time
import unittest

from wmill.worker import Client, Worker, enqueue, signal
from wmill.worker import _execution, _registry
from .fake_server import FakeServer


def claim(workflow, steps=(), attempt=1, run_id="r1", token=7):
    return {"runId": run_id, "token": token, "workflow": workflow, "payload": {"x": 2}, "attempt": attempt,
            "maxAttempts": 3, "claimedAt": 1_000_000, "leaseMs": 3000, "steps": list(steps)}


def journal(key, kind="step", status="done", value=None, wake_at=None, attempts=1):
    return {"key": key, "kind": kind, "status": status, "value": value, "error": None, "event": None,
            "wakeAt": wake_at, "attempts": attempts, "position": 0}


class WorkerTest(unittest.TestCase):
    def setUp(self):
        _registry._registry.clear()
        self.claims = []
        self.refuse = set()

    def tearDown(self):
        _registry._registry.clear()

    def run_claims(self, handlers, claims, refuse=(), until=("/finish", "/park"), tasks=None, server_opts=None,
                   **worker_opts):
        """Registers handlers, serves the claims once, and returns the fake server's record.
        ``refuse``: ops answered 409 LEASE_LOST, or (op, run id) pairs; ``server_opts``: FakeServer's."""
        pending = list(claims)
        refuse = set(refuse)

        def answer(path, body):
            if path.endswith("/claim"):
                batch, pending[:] = pending[:], []
                if not batch:
                    time.sleep(0.05)
                return 200, {"claims": batch}
            op = path.rsplit("/", 1)[1]
            if op in refuse or (op, path.rsplit("/", 2)[-2]) in refuse:
                return 409, {"error": {"code": "LEASE_LOST", "message": "not your claim"}}
            if path.endswith("/workflows"):
                return 200, {"registered": [w["name"] for w in body["workflows"]]}
            return 200, {"ok": True}

        server = self.server = FakeServer(answer, **(server_opts or {}))
        for name, fn in handlers.items():
            _registry.register_workflow(name, fn, tasks=(tasks or {}).get(name))
        opts = {"concurrency": 4, "lease": 3, "poll_wait": 0.05, "inline_sleep": 0.2, **worker_opts}
        worker = Worker(Client(server.url), **opts)
        t = threading.Thread(target=worker.run)
        t.start()
        deadline = time.time() + 5
        while time.time() < deadline and sum(p.endswith(until) for p in server.paths()) < len(claims):
            time.sleep(0.01)
        time.sleep(0.1)
        worker.stop()
        t.join(5)
        server.close()
        self.assertFalse(t.is_alive(), "the worker drains and returns after stop()")
        return server

    def test_log_lines_reach_the_server_while_the_run_runs_with_their_times_and_before_an_error_finish(self):
        saved = _execution.LOG_FLUSH_EVERY
        _execution.LOG_FLUSH_EVERY = 0.1
        self.addCleanup(setattr, _execution, "LOG_FLUSH_EVERY", saved)
        seen_mid_run = []

        def wf(ctx, _payload):
            ctx.log("first")
            time.sleep(0.4)
            seen_mid_run.extend(line["message"] for b in self.server.bodies("/logs") for line in b["lines"])
            ctx.log("second")
            raise RuntimeError("flaky")

        server = self.run_claims({"wf": wf}, [claim("wf")])
        self.assertEqual(seen_mid_run, ["first"])
        lines = [line for b in server.bodies("/logs") for line in b["lines"]]
        self.assertEqual([line["message"] for line in lines][:2], ["first", "second"])
        self.assertEqual(lines[2]["level"], "error")  # the traceback, before the finish
        first, second = lines[0]["ts"], lines[1]["ts"]
        self.assertTrue(1_000_000 <= first <= 1_000_100, first)
        self.assertTrue(380 <= second - first <= 1_000, (first, second))
        paths = [p.rsplit("/", 1)[1] for p in server.paths() if "/runs/" in p]
        self.assertEqual(paths[-1], "finish")
        self.assertNotIn("logs", paths[paths.index("finish"):])
        self.assertEqual(server.bodies("/finish")[0]["outcome"], "retry")

    def test_keys_repeat_as_name_hash_n_and_done_steps_replay_without_running(self):
        ran = []

        def wf(ctx, payload):
            a = ctx.step.run("s", lambda: ran.append("first") or 1)
            b = ctx.step.run("s", lambda: ran.append("second") or a + payload["x"])
            return {"b": b}

        server = self.run_claims({"wf": wf}, [claim("wf", [journal("s", value=1)])])
        self.assertEqual(ran, ["second"])
        saved = server.bodies("/steps")
        self.assertEqual([(s["key"], s["position"], s["value"]) for b in saved for s in b["steps"]], [("s#2", 1, 3)])
        self.assertEqual(saved[0]["token"], 7)
        self.assertEqual(server.bodies("/finish"), [{"outcome": "succeeded", "result": {"b": 3}, "token": 7}])

    def test_the_claims_due_and_claim_times_reach_the_context_as_utc_datetimes(self):
        seen = {}

        def wf(ctx, _payload):
            seen[ctx.run_id] = (ctx.claimed_at, ctx.due_at)

        waited = {**claim("wf", run_id="waited"), "claimedAt": 1_796_111_238_069, "dueAt": 1_796_111_237_912}
        old = {**claim("wf", run_id="old-server"), "claimedAt": 1_796_111_238_069}  # a server without dueAt
        self.run_claims({"wf": wf}, [waited, old])
        claimed, due = seen["waited"]
        self.assertEqual(due, datetime(2026, 12, 1, 7, 47, 17, 912_000, tzinfo=timezone.utc))
        self.assertEqual(claimed - due, timedelta(milliseconds=157))
        self.assertEqual(seen["old-server"], (datetime(2026, 12, 1, 7, 47, 18, 69_000, tzinfo=timezone.utc), None))

    def test_another_kind_at_a_key_is_non_determinism_and_fails_without_retry(self):
        def wf(ctx, _payload):
            ctx.step.sleep("s", 10)

        server = self.run_claims({"wf": wf}, [claim("wf", [journal("s", value=1)])])
        [finish] = server.bodies("/finish")
        self.assertEqual(finish["outcome"], "failed")
        self.assertEqual(finish["error"]["code"], "NON_DETERMINISM")
        self.assertIn("'s'", finish["error"]["message"])

    def test_a_lease_lost_on_a_checkpoint_stops_the_handler_and_nothing_more_is_written(self):
        after = []

        def wf(ctx, _payload):
            ctx.step.run("a", lambda: 1)
            after.append("ran on")
            ctx.step.run("b", lambda: 2)

        server = self.run_claims({"wf": wf}, [claim("wf")], refuse={"steps"}, until=("/steps",))
        self.assertEqual(after, [])
        self.assertEqual(len(server.bodies("/steps")), 1)
        self.assertEqual(server.bodies("/finish") + server.bodies("/park"), [])

    def test_step_retries_inline_then_the_error_reaches_the_run_as_retry(self):
        tries = []

        def boom():
            tries.append(1)
            raise RuntimeError("flaky")

        def wf(ctx, _payload):
            ctx.step.run("a", boom, retries=2, backoff=(0.01, 0.02))

        server = self.run_claims({"wf": wf}, [claim("wf")])
        self.assertEqual(len(tries), 3)
        [finish] = server.bodies("/finish")
        self.assertEqual((finish["outcome"], finish["error"]["message"], finish["error"]["name"]),
                         ("retry", "flaky", "RuntimeError"))

    def test_a_long_sleep_parks_with_its_pending_step_and_except_exception_does_not_swallow_it(self):
        def wf(ctx, _payload):
            try:
                ctx.step.sleep("nap", 60)
            except Exception:  # noqa: BLE001 - the point of the test
                return "swallowed"

        server = self.run_claims({"wf": wf}, [claim("wf")])
        self.assertEqual(server.bodies("/finish"), [])
        [park] = server.bodies("/park")
        self.assertEqual(park["wakeAfterMs"], 60000)
        self.assertEqual([(s["key"], s["kind"], s["status"]) for s in park["steps"]], [("nap", "sleep", "pending")])

    def test_bail_and_a_child_error_end_the_run_without_retry(self):
        def bails(ctx, _payload):
            ctx.bail("no stock")

        def parent(ctx, _payload):
            ctx.step.child("c", "other", {"n": 0})

        child_failed = journal("c", kind="task", status="error")
        child_failed["error"] = {"message": "cannot", "code": "ZERO"}
        server = self.run_claims(
            {"bails": bails, "parent": parent},
            [claim("bails", run_id="r1"), claim("parent", [child_failed], run_id="r2")],
        )
        by_outcome = sorted((b["outcome"], b.get("reason") or b["error"]["name"]) for b in server.bodies("/finish"))
        self.assertEqual(by_outcome, [("cancelled", "no stock"), ("failed", "ChildError")])


    def test_a_large_fan_out_is_sent_as_children_writes_then_one_park_each_under_the_budget(self):
        def wf(ctx, _payload):
            ctx.step.children([{"name": "item", "task": "item", "payload": {"i": i, "pad": "x" * 40}} for i in range(300)])

        server = self.run_claims({"wf": wf}, [claim("wf")], tasks={"wf": {"item": lambda ctx, p: p}}, park_bytes=4096)
        parts = server.bodies("/children")
        [park] = server.bodies("/park")
        self.assertGreater(len(parts), 3)
        self.assertTrue(all(len(json.dumps(b["children"], separators=(",", ":"))) <= 4096 for b in parts + [park]))
        keys = [c["key"] for b in parts + [park] for c in b["children"]]
        self.assertEqual(keys, ["item"] + [f"item#{i}" for i in range(2, 301)])
        self.assertTrue(park["awaitChildren"])
        self.assertEqual({b["token"] for b in parts}, {7})
        self.assertEqual(server.bodies("/finish"), [])

    def test_a_lost_children_write_stops_the_park(self):
        def wf(ctx, _payload):
            ctx.step.children([{"name": "item", "task": "item", "payload": {"pad": "x" * 100}} for _ in range(100)])

        server = self.run_claims({"wf": wf}, [claim("wf")], refuse={"children"}, until=("/children",),
                                 tasks={"wf": {"item": lambda ctx, p: p}}, park_bytes=2048)
        self.assertEqual(len(server.bodies("/children")), 1)
        self.assertEqual(server.bodies("/park") + server.bodies("/finish"), [])

    def test_task_claims_run_the_workflows_task_and_its_error_fails_without_retry(self):
        def extract(ctx, payload):
            return ctx.step.run("rows", lambda: payload["x"] * 10)

        def broken(_ctx, _payload):
            raise RuntimeError("bad row")

        tasks = {"wf": [extract, broken]}
        c1, c2, c3 = claim("wf", run_id="t1"), claim("wf", run_id="t2"), claim("wf", run_id="t3")
        c1["task"], c2["task"], c3["task"] = "extract", "broken", "nope"
        server = self.run_claims({"wf": lambda ctx, p: "the workflow"}, [c1, c2, c3], tasks=tasks)
        by_run = {p.split("/")[-2]: b for p, b in server.requests if p.endswith("/finish")}
        self.assertEqual(by_run["t1"]["result"], 20)
        self.assertEqual((by_run["t2"]["outcome"], by_run["t2"]["error"]["message"]), ("failed", "bad row"))
        self.assertEqual(by_run["t3"]["outcome"], "failed")
        self.assertIn("has no task 'nope'", by_run["t3"]["error"]["message"])

    def test_an_exception_whose_str_raises_still_fails_its_run_saying_so(self):
        class Unprintable(Exception):
            def __str__(self):
                raise RuntimeError("no message")

            @property
            def code(self):
                raise RuntimeError("no code either")

        def broken(_ctx, _payload):
            raise Unprintable()

        server = self.run_claims({"wf": broken}, [claim("wf")])
        finish = [b for p, b in server.requests if p.endswith("/finish")]
        self.assertEqual(len(finish), 1, "the claim ends instead of being heartbeated forever")
        self.assertEqual(finish[0]["error"], {
            "name": "Unprintable", "message": "Unprintable (its message could not be read: str() raised RuntimeError)"})

    def test_task_calls_send_options_replay_by_target_and_raise_a_stable_task_error(self):
        from wmill.worker import TaskError

        seen = []

        def parent(ctx, _payload):
            try:
                ctx.step.task("load", "load", {"n": 1})
            except TaskError as err:
                seen.append((err.step_key, err.child_job_id, err.result, err.code))
            ctx.step.task("next", "extract", {"n": 2}, priority=4, timeout=1.5, cache_ttl=60)

        def changed(ctx, _payload):
            ctx.step.task("load", "extract", {})

        failed = journal("load", kind="task", status="error")
        failed.update(childId="kid-9", target="load", error={"name": "ValueError", "message": "no", "code": "NO"})
        server = self.run_claims({"parent": parent, "changed": changed},
                                 [claim("parent", [failed], run_id="p1"), claim("changed", [failed], run_id="p2")])
        self.assertEqual(seen, [("load", "kid-9", {"name": "ValueError", "message": "no", "code": "NO"}, "NO")])
        [park] = server.bodies("/park")
        self.assertEqual(park["children"], [{"key": "next", "position": 1, "payload": {"n": 2}, "task": "extract",
                                             "priority": 4, "timeoutMs": 1500, "cacheTtlMs": 60000}])
        [finish] = server.bodies("/finish")
        self.assertEqual(finish["error"]["code"], "NON_DETERMINISM")
        self.assertIn("call #1", finish["error"]["message"])
        self.assertIn("'load'", finish["error"]["message"])


    def test_a_versioned_worker_registers_its_version_and_claims_only_for_it(self):
        server = FakeServer(lambda path, body: (200, {"claims": []} if path.endswith("/claim") else {"registered": []}))
        try:
            _registry.register_workflow("wf", lambda ctx, p: None, version="build-7")
            worker = Worker(Client(server.url), poll_wait=0.05)
            t = threading.Thread(target=worker.run)
            t.start()
            deadline = time.time() + 5
            while time.time() < deadline and not server.bodies("/claim"):
                time.sleep(0.01)
            worker.stop()
            t.join(5)
            [reg] = server.bodies("/workflows")
            self.assertEqual(reg["workflows"], [{"name": "wf", "version": "build-7"}])
            self.assertEqual(server.bodies("/claim")[0]["version"], "build-7")
            _registry.register_workflow("other", lambda ctx, p: None, version="build-8")
            with self.assertRaisesRegex(ValueError, "one code version"):
                Worker(Client(server.url)).run()
        finally:
            server.close()

    def test_the_worker_claims_under_sluice_worker_id_when_set(self):
        # Sluice sets it for a sluice.json worker command and releases that id's claims when the process dies.
        import os
        from unittest import mock
        server = FakeServer(lambda path, body: (200, {"claims": []} if path.endswith("/claim") else {"registered": []}))
        try:
            _registry.register_workflow("wf", lambda ctx, p: None)
            with mock.patch.dict(os.environ, {"SLUICE_WORKER_ID": "cmd1:host:4242:2"}):
                self.assertEqual(Worker(Client(server.url)).worker_id, "cmd1:host:4242:2")
                self.assertEqual(Worker(Client(server.url), worker_id="mine").worker_id, "mine")
                worker = Worker(Client(server.url), poll_wait=0.05)
            t = threading.Thread(target=worker.run)
            t.start()
            deadline = time.time() + 5
            while time.time() < deadline and not server.bodies("/claim"):
                time.sleep(0.01)
            worker.stop()
            t.join(5)
            self.assertEqual(server.bodies("/claim")[0]["workerId"], "cmd1:host:4242:2")
            with mock.patch.dict(os.environ, {"SLUICE_WORKER_ID": ""}):
                self.assertTrue(Worker(Client(server.url)).worker_id.startswith("python:"))
        finally:
            server.close()


class IdleExitTest(unittest.TestCase):
    """SLUICE_EXIT_WHEN_IDLE_MS (Sluice sets it for a worker command it runs as a scale-to-zero lane):
    ``run`` returns once no run has executed for the window, so the program exits 0."""

    def setUp(self):
        _registry._registry.clear()
        self.waits = []
        self.finished_at = None
        self.pending = []

    def tearDown(self):
        _registry._registry.clear()

    def answer(self, path, body):
        """Claims as the server answers them with nothing runnable: after ``waitMs`` (at most 2 s), none."""
        if path.endswith("/claim"):
            self.waits.append(body["waitMs"])
            if self.pending:
                batch, self.pending = self.pending, []
                return 200, {"claims": batch}
            time.sleep(min(body["waitMs"], 2000) / 1000)
            return 200, {"claims": []}
        if path.endswith("/finish"):
            self.finished_at = time.monotonic()
        return 200, {"registered": []} if path.endswith("/workflows") else {"ok": True}

    def run_until_exit(self, worker):
        t = threading.Thread(target=worker.run)
        started = time.monotonic()
        t.start()
        t.join(5)
        alive = t.is_alive()
        if alive:
            worker.stop()
            t.join(5)
        self.assertFalse(alive, "the worker did not return from run() within 5 s")
        return time.monotonic() - started

    def test_with_sluice_exit_when_idle_ms_run_returns_once_no_claim_came_within_the_window(self):
        import os
        from unittest import mock
        server = FakeServer(self.answer)
        try:
            _registry.register_workflow("wf", lambda ctx, p: None)
            with mock.patch.dict(os.environ, {"SLUICE_EXIT_WHEN_IDLE_MS": "300"}):
                worker = Worker(Client(server.url), poll_wait=20)
            took = self.run_until_exit(worker)
            self.assertGreaterEqual(took, 0.3, "exited before its 300 ms idle window")
            # Its long-polls were cut to the window instead of the 20 s poll_wait.
            self.assertTrue(self.waits and all(1 <= w <= 300 for w in self.waits), self.waits)
        finally:
            server.close()

    def test_the_idle_window_counts_from_the_end_of_the_last_run(self):
        server = FakeServer(self.answer)
        try:
            _registry.register_workflow("slow", lambda ctx, p: time.sleep(0.3))
            self.pending = [claim("slow")]
            worker = Worker(Client(server.url), poll_wait=20, exit_when_idle=0.2, lease=3)
            self.run_until_exit(worker)
            exited = time.monotonic()
            [finish] = server.bodies("/r1/finish")
            self.assertEqual(finish["outcome"], "succeeded")
            self.assertGreaterEqual(exited - self.finished_at, 0.2, "exited within the idle window after the run")
        finally:
            server.close()

    def test_a_bad_sluice_exit_when_idle_ms_is_refused_naming_it(self):
        import os
        from unittest import mock
        for bad in ("30s", "0", "-5"):
            with mock.patch.dict(os.environ, {"SLUICE_EXIT_WHEN_IDLE_MS": bad}):
                with self.assertRaisesRegex(ValueError, f"SLUICE_EXIT_WHEN_IDLE_MS must be a positive whole number of milliseconds.*{bad!r}"):
                    Worker(Client("http://127.0.0.1:9"))

    def test_without_an_idle_window_the_worker_keeps_claiming(self):
        import os
        from unittest import mock
        server = FakeServer(self.answer)
        try:
            _registry.register_workflow("wf", lambda ctx, p: None)
            with mock.patch.dict(os.environ, {"SLUICE_EXIT_WHEN_IDLE_MS": ""}):
                worker = Worker(Client(server.url), poll_wait=0.05)
            t = threading.Thread(target=worker.run)
            t.start()
            t.join(0.5)
            self.assertTrue(t.is_alive(), "the worker returned although no idle window was set")
            worker.stop()
            t.join(5)
        finally:
            server.close()


class ProducerTest(unittest.TestCase):
    def test_enqueue_and_signal_send_their_fields(self):
        def answer(path, body):
            if path == "/api/signals":
                return 200, {"woke": 2}
            return 201, {"run": {"id": "r9"}, "deduplicated": False}

        server = FakeServer(answer)
        try:
            client = Client(server.url, "secret")
            out = enqueue("charge", {"c": 1}, id="r9", max_attempts=4,
                          concurrency={"key": "cards", "limit": 1}, client=client)
            self.assertEqual(out, {"id": "r9", "deduplicated": False})
            self.assertEqual(server.bodies("/api/runs"), [{"workflow": "charge", "payload": {"c": 1}, "id": "r9",
                                                           "retries": 3, "concurrency": {"key": "cards", "limit": 1}}])
            self.assertEqual(signal("approval:1", {"ok": True}, client=client), 2)
            with self.assertRaises(ValueError):
                enqueue("charge", concurrency={"key": "cards", "limit": 0}, client=client)
        finally:
            server.close()


if __name__ == "__main__":
    unittest.main()
