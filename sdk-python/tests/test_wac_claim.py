"""The journal rules of seed 000's Python host on the worker protocol (``wmill._wac_claim``),
without a server: a claim's ``wmill`` calls answered, deferred or refused from its journal."""
import asyncio
import unittest

from wmill._wac_claim import Claim, Final, child_options, module_script_name
from wmill.client import SluiceError, TaskError
from wmill.worker._errors import SluiceAPIError


class _Host:
    """Stands in for the worker (``_wac_worker.WacWorker``): records what the claim asks of it."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.checkpoints = []
        self.steps = []
        self.buffered = 0

    def mark(self, ex):
        pass

    def logs_buffered(self, ex):
        self.buffered += 1

    def checkpoint(self, ex, step, cid, value):
        self.checkpoints.append((step, cid, value))

    def run_step(self, ex, cid, key, pos, attempt):
        self.steps.append((key, pos, attempt))


class _Code:
    def kind_of(self, claim):
        return "task" if claim.get("task") else "workflow"

    def module_path(self, claim):
        return "f/x/flow.py"


def claim_of(steps=(), claimed_at=1_000_000):
    return {"runId": "r1", "token": 3, "workflow": "f/x/flow", "task": None, "version": "v",
            "claimedAt": claimed_at, "steps": list(steps), "attempt": 1, "leaseMs": 30000}


class ClaimTest(unittest.TestCase):
    def setUp(self):
        self.host = _Host()

    def tearDown(self):
        self.host.loop.close()

    def turn(self, ex, *calls):
        """Makes the calls as workflow code would, then the turn Sluice performs; returns the futures."""
        futs = [ex.call(op, fields) for op, fields in calls]
        made, ex.calls = ex.calls, []
        for c in made:
            ex.perform(c)
        return futs

    def test_a_gather_of_new_tasks_defers_one_child_each_with_keys_in_call_order(self):
        ex = Claim(self.host, claim_of(), _Code())
        futs = self.turn(ex, *[("task", {"name": "inc", "args": [i], "options": {}}) for i in range(3)])
        self.assertFalse(any(f.done() for f in futs))
        body, children = ex.park_body()
        self.assertEqual([c["key"] for c in children], ["inc", "inc#2", "inc#3"])
        self.assertEqual([c["position"] for c in children], [0, 1, 2])
        self.assertEqual(children[1], {"key": "inc#2", "position": 1, "payload": [1], "target": "inc",
                                       "maxAttempts": 3, "task": "inc"})
        self.assertTrue(body["awaitChildren"])

    def test_a_done_task_is_answered_and_a_failed_one_raises_the_same_task_error(self):
        err = {"name": "RuntimeError", "message": "kaput"}
        ex = Claim(self.host, claim_of([
            {"key": "boom", "kind": "task", "status": "error", "target": "boom", "childId": "c1", "error": err},
            {"key": "ok", "kind": "task", "status": "done", "target": "ok", "value": 7},
        ]), _Code())
        boom, ok = self.turn(ex, ("task", {"name": "boom", "args": [], "options": {}}),
                             ("task", {"name": "ok", "args": [], "options": {}}))
        self.assertEqual(ok.result(), 7)
        e = boom.exception()
        self.assertIsInstance(e, TaskError)
        self.assertEqual((e.message, e.step_key, e.child_job_id, e.result), ("kaput", "boom", "c1", err))
        self.assertFalse(ex.has_deferred())

    def test_another_call_at_a_recorded_key_is_non_determinism_naming_key_and_position(self):
        ex = Claim(self.host, claim_of([
            {"key": "f/sem/lib", "kind": "task", "status": "done", "target": "script:f/sem/lib", "value": 1},
        ]), _Code())
        with self.assertRaises(Final) as caught:
            self.turn(ex, ("flow", {"path": "f/sem/lib", "args": {}, "options": {}}))
        err = caught.exception.error
        self.assertIsInstance(err, SluiceError)
        self.assertEqual(err.code, "NON_DETERMINISM")
        self.assertIn('checkpoint "f/sem/lib" (call #1)', err.message)
        self.assertIn('recorded task "script:f/sem/lib" but the code now calls task "flow:f/sem/lib"', err.message)

    def test_a_sleep_parks_with_its_pending_step_and_once_due_is_checkpointed_done(self):
        ex = Claim(self.host, claim_of(), _Code())
        self.turn(ex, ("sleep", {"seconds": 1.4}))
        body, _ = ex.park_body()
        self.assertEqual(body["wakeAfterMs"], 1000)
        self.assertEqual(body["steps"], [{"key": "sleep", "kind": "sleep", "status": "pending", "position": 0,
                                          "wakeAfterMs": 1000}])
        due = Claim(self.host, claim_of([{"key": "sleep", "kind": "sleep", "status": "pending", "wakeAt": 999_000}]),
                    _Code())
        self.turn(due, ("sleep", {"seconds": 1}))
        self.assertEqual(self.host.checkpoints[0][0], {"key": "sleep", "kind": "sleep", "status": "done", "position": 0})
        self.assertFalse(due.has_deferred())

    def test_an_approval_without_a_deadline_parks_without_a_wake_time(self):
        ex = Claim(self.host, claim_of([{"key": "waitForApproval", "kind": "approval", "status": "pending",
                                         "wakeAt": None}]), _Code())
        self.turn(ex, ("approval", {"timeout": 60, "form": None, "selfApproval": True}))
        body, children = ex.park_body()
        self.assertTrue(ex.has_deferred())
        self.assertEqual((body["wakeAfterMs"], children, "awaitChildren" in body), (None, [], False))

    def test_a_step_is_answered_from_the_journal_or_its_body_is_run(self):
        ex = Claim(self.host, claim_of([{"key": "a", "kind": "step", "status": "done", "value": 2}]), _Code())
        a, b = self.turn(ex, ("step", {"name": "a"}), ("step", {"name": "b"}))
        self.assertEqual(a.result(), 2)
        self.assertFalse(b.done())
        self.assertEqual(self.host.steps, [("b", 1, 1)])

    def test_lines_printed_while_replaying_are_not_logged_again(self):
        ex = Claim(self.host, claim_of([{"key": "a", "kind": "step", "status": "done", "value": 2}]), _Code())
        ex.log("info", "before the recorded call")
        self.turn(ex, ("step", {"name": "a"}))
        ex.log("info", "after it")
        self.assertEqual([line["message"] for line in ex.take_logs()[0]], ["after it"])

    def test_each_line_has_the_time_it_was_logged_and_a_flush_is_asked_once_per_buffer(self):
        from unittest import mock
        ex = Claim(self.host, claim_of(claimed_at=5_000_000), _Code())
        with mock.patch("time.monotonic", return_value=ex.received + 1.5):
            ex.log("info", "first")
            ex.log("info", "second")
        self.assertEqual(self.host.buffered, 1)
        self.assertEqual(ex.take_logs()[0], [{"level": "info", "message": "first", "ts": 5_001_500},
                                          {"level": "info", "message": "second", "ts": 5_001_500}])
        ex.log("error", "third")
        self.assertEqual(self.host.buffered, 2)
        [line] = ex.take_logs()[0]
        self.assertGreaterEqual(line["ts"], 5_000_000)

    def test_a_park_refused_for_an_unknown_workflow_fails_only_the_calls_of_that_workflow(self):
        ex = Claim(self.host, claim_of(), _Code())
        futs = self.turn(ex, ("script", {"path": "f/nope/a", "args": {}, "options": {}}),
                         ("task", {"name": "inc", "args": [1], "options": {}}),
                         ("flow", {"path": "f/ok/b", "args": {}, "options": {}}),
                         ("script", {"path": "f/nope/a", "args": {}, "options": {}}))
        err = SluiceAPIError(404, "UNKNOWN_WORKFLOW", 'unknown workflow "f/nope/a"; known workflows: f/ok/b')
        self.assertTrue(ex.refused_children(err))
        self.assertEqual([c["key"] for c in ex.deferred["children"]], ["inc", "f/ok/b"])
        for fut, key in ((futs[0], "f/nope/a"), (futs[3], "f/nope/a#2")):
            with self.assertRaises(TaskError) as caught:
                fut.result()
            self.assertEqual(caught.exception.step_key, key)
            self.assertTrue(str(caught.exception).startswith('task_script("f/nope/a") cannot run: unknown workflow "f/nope/a"'))
            self.assertEqual(caught.exception.result["code"], "UNKNOWN_WORKFLOW")
        self.assertFalse(futs[1].done() or futs[2].done())
        # An answer that names none of the deferred children changes nothing.
        self.assertFalse(ex.refused_children(SluiceAPIError(404, "UNKNOWN_WORKFLOW", 'unknown workflow "f/x"')))
        self.assertEqual(len(ex.deferred["children"]), 2)


class NamesAndOptionsTest(unittest.TestCase):
    def test_task_script_paths_resolve_like_the_engine(self):
        self.assertEqual(module_script_name("./extract.py", "f/x/flow.py"), "f/x/flow__mod/extract")
        self.assertEqual(module_script_name("./extract.py", "f/x/flow__mod/script.py"), "f/x/flow__mod/extract")
        self.assertEqual(module_script_name("../helpers/a.py", "f/x/flow.py"), "f/x/helpers/a")
        self.assertEqual(module_script_name("f/data/extract", "f/x/flow.py"), "f/data/extract")
        self.assertEqual(module_script_name("/f/data/extract.ts", None), "f/data/extract")

    def test_task_options_become_child_fields(self):
        self.assertEqual(
            child_options({"timeout": 1.5, "cache_ttl": 60, "tag": "gpu", "priority": 2, "concurrency_limit": 1,
                           "concurrency_time_window_s": 10}, "f/x/flow", "t"),
            {"maxAttempts": 3, "group": "gpu", "priority": 2, "timeoutMs": 1500, "cacheTtlMs": 60000,
             "concurrency": {"key": "f/x/flow:t", "limit": 1, "windowMs": 10000}})
        with self.assertRaises(Final) as caught:
            child_options({"timeout": -1}, "f/x/flow", "t")
        self.assertIn("timeout must be a positive number of seconds", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
