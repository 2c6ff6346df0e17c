"""The ``@workflow`` host's last log lines (``wmill._wac_worker``, the real process, against the fake
server): a run's last lines are sent before its finish, and a send of them that fails for a reason
worth retrying is sent again, and only then the finish, as every other log write's lines are kept
and sent again (the finish would make the server drop them: its claim is over)."""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from tests.fake_server import FakeServer

_SDK = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TALK = '''def main():
    print("first")
    print("second")
    return "done"
'''


def bundle(source):
    header = {"file": "f/p/talk.py", "kind": "script", "params": []}
    return "#sluice-python " + json.dumps(header) + "\n" + source


class LastLinesTest(unittest.TestCase):
    def run_claim(self, fail_logs):
        """Runs one claim of f/p/talk in a real host process; ``fail_logs(n)`` answers its n-th log
        write (from 1) with (status, body), or None to accept it. The requests, in order, once it finished."""
        claimed = threading.Event()
        finished = threading.Event()
        log_writes = [0]

        def answer(path, body):
            if path == "/api/worker/claim":
                if claimed.is_set():
                    time.sleep(0.2)
                    return 200, {"claims": []}
                claimed.set()
                return 200, {"claims": [{"runId": "r1", "token": 7, "attempt": 1, "workflow": "f/p/talk",
                                         "task": None, "version": "v1", "payload": {}, "steps": [],
                                         "claimedAt": int(time.time() * 1000), "leaseMs": 30000}]}
            if path == "/api/worker/code":
                return 200, {"code": bundle(TALK)}
            if path == "/api/worker/heartbeat":
                return 200, {"lost": []}
            if path.endswith("/logs"):
                log_writes[0] += 1
                failure = fail_logs(log_writes[0])
                return failure or (200, {"accepted": len(body["lines"])})
            if path.endswith("/finish"):
                finished.set()
                return 200, {"status": "succeeded"}
            return 404, {"error": {"code": "NOT_FOUND", "message": path}}

        server = FakeServer(answer)
        root = tempfile.mkdtemp(prefix="wac-logs-")
        os.makedirs(os.path.join(root, "f", "p"))
        with open(os.path.join(root, "f", "p", "talk.py"), "w") as f:
            f.write(TALK)
        env = {**os.environ, "SLUICE_URL": server.url, "PYTHONPATH": _SDK, "PYTHONUNBUFFERED": "1"}
        env.pop("SLUICE_TOKEN", None)
        proc = subprocess.Popen([sys.executable, "-m", "wmill._wac_worker"], cwd=root, env=env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        err = b""
        try:
            proc.stdin.write(b'{"workflows": ["f/p/talk"]}\n')
            proc.stdin.flush()
            done = finished.wait(20)
            time.sleep(0.3)  # anything sent after the finish would show
            _, err = proc.communicate(timeout=15)  # closes its stdin: Sluice is gone, the host stops
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for pipe in (proc.stdout, proc.stderr):
                pipe.close()
            server.close()
        self.assertTrue(done, f"no finish; stderr:\n{err.decode()}")
        writes = [(p.rsplit("/", 1)[1], b) for p, b in server.requests if p.startswith("/api/worker/runs/")]
        return writes, err.decode()

    def test_the_last_lines_are_sent_again_after_a_failed_send_and_before_the_finish(self):
        writes, err = self.run_claim(
            lambda n: (500, {"error": {"code": "INTERNAL", "message": "internal error"}}) if n == 1 else None)
        ops = [op for op, _ in writes]
        self.assertEqual(ops, ["logs", "logs", "finish"], err)
        first, again = writes[0][1], writes[1][1]
        self.assertEqual([line["message"] for line in first["lines"]], ["first", "second"])
        # The same lines, with the times they were logged.
        self.assertEqual(again["lines"], first["lines"])
        self.assertTrue(all(isinstance(line["ts"], int) for line in again["lines"]))
        self.assertEqual(writes[2][1]["outcome"], "succeeded")
        self.assertIn("run r1: logs failed", err)
        self.assertNotIn("not written", err)

    def test_a_send_that_cannot_succeed_is_not_retried_and_the_finish_follows(self):
        writes, err = self.run_claim(
            lambda n: (413, {"error": {"code": "BODY_TOO_LARGE", "message": "too large"}}) if n == 1 else None)
        self.assertEqual([op for op, _ in writes], ["logs", "finish"], err)
        self.assertIn("run r1: 2 log line(s) not written", err)


if __name__ == "__main__":
    unittest.main()
