"""Unit tests of the outbox (wmill.worker's batched writes, docs/PROTOCOL.md "Batch") and of the
connection pool, against the fake server: writes of several claims share one batch request, each
gets its own answer (a LEASE_LOST stops only its claim), a server without the batch route gets one
request per write, and claims reuse kept-alive connections."""
import threading
import unittest

from wmill.worker import _registry
from . import test_worker
from .test_worker import claim


class OutboxTest(unittest.TestCase):
    setUp = test_worker.WorkerTest.setUp
    tearDown = test_worker.WorkerTest.tearDown
    run_claims = test_worker.WorkerTest.run_claims

    def test_finishes_of_several_claims_share_one_batch_each_with_its_own_token_and_answer(self):
        together = threading.Barrier(6, timeout=5)

        def wf(ctx, payload):
            together.wait()  # all six finish at once; the first batch is slow, the others queue
            return payload["x"]

        claims = [claim("wf", run_id=f"r{i}", token=10 + i) for i in range(6)]
        for i, c in enumerate(claims):
            c["payload"] = {"x": i}
        server = self.run_claims({"wf": wf}, claims, concurrency=6, server_opts={"slow_first_batch": 0.3})
        finishes = {p.split("/")[-2]: b for p, b in server.requests if p.endswith("/finish")}
        self.assertEqual(finishes, {f"r{i}": {"outcome": "succeeded", "result": i, "token": 10 + i} for i in range(6)})
        self.assertEqual([p for p in server.direct if p.startswith("/api/worker/runs/")], [])
        self.assertLess(len(server.batches), 6, "writes made while a batch was in flight went together")
        self.assertTrue(any(len({w["runId"] for w in b}) > 1 for b in server.batches))
        self.assertEqual(sum(len(b) for b in server.batches), 6)

    def test_a_lease_lost_item_of_a_batch_stops_only_its_own_claim(self):
        together = threading.Barrier(3, timeout=5)
        after = []

        def wf(ctx, _payload):
            together.wait()
            ctx.step.run("a", lambda: 1)
            after.append(ctx.run_id)
            ctx.step.run("b", lambda: 2)
            return "ok"

        claims = [claim("wf", run_id=f"r{i}") for i in range(3)]
        server = self.run_claims({"wf": wf}, claims, refuse={("steps", "r1")}, concurrency=3, until=("/steps",),
                                 server_opts={"slow_first_batch": 0.3})
        # r1's refused checkpoint shared a batch with another claim's write, which landed.
        [shared] = [b for b in server.batches if "r1" in {w["runId"] for w in b}]
        self.assertGreater(len(shared), 1)
        self.assertEqual(sorted(after), ["r0", "r2"])
        finished = sorted(p.split("/")[-2] for p, _ in server.requests if p.endswith("/finish"))
        self.assertEqual(finished, ["r0", "r2"])
        self.assertEqual([b["steps"][0]["key"] for b in server.bodies("/runs/r1/steps")], ["a"])
        self.assertEqual(server.bodies("/runs/r1/park"), [])

    def test_a_server_without_the_batch_route_gets_one_request_per_write(self):
        def wf(ctx, _payload):
            return ctx.step.run("a", lambda: 5)

        server = self.run_claims({"wf": wf}, [claim("wf", run_id="r1"), claim("wf", run_id="r2")],
                                 server_opts={"batch": False})
        self.assertEqual(server.batches, [])
        self.assertEqual(server.direct.count("/api/worker/batch"), 1, "asked once, then one request per write")
        self.assertEqual(sorted(p for p in server.paths() if p.startswith("/api/worker/runs/")),
                         ["/api/worker/runs/r1/finish", "/api/worker/runs/r1/steps",
                          "/api/worker/runs/r2/finish", "/api/worker/runs/r2/steps"])
        self.assertEqual({b["result"] for b in server.bodies("/finish")}, {5})

    def test_claims_reuse_kept_alive_connections(self):
        def wf(ctx, _payload):
            ctx.step.run("a", lambda: 1)
            return ctx.step.run("b", lambda: 2)

        server = self.run_claims({"wf": wf}, [claim("wf", run_id=f"r{i}") for i in range(40)], concurrency=4)
        self.assertEqual(len(server.bodies("/finish")), 40)
        # 120 writes and the claims: the long-poll's own connection and a few pooled ones, not one per claim.
        self.assertLessEqual(server.connections, 8)


if __name__ == "__main__":
    unittest.main()
