"""The bounded buffer of a claim's unsent log lines, and the rules for a failed log write."""
import unittest

from wmill.worker._errors import SluiceAPIError
from wmill.worker._log_buffer import LogBuffer, refused_lines, retryable, untimed, whole_refusal


class LogBufferTest(unittest.TestCase):
    def test_keeps_the_newest_lines_and_counts_the_dropped_in_one_marker(self):
        b = LogBuffer(limit=3)
        for i in range(1, 5):
            b.add({"level": "info", "message": str(i), "ts": i})
        lines, dropped = b.take()
        self.assertEqual(dropped, 1)
        self.assertEqual([line["message"] for line in lines[1:]], ["2", "3", "4"])
        self.assertTrue(lines[0]["message"].startswith("sluice: 1 log line(s) dropped here"))
        self.assertEqual(lines[0]["ts"], 2)
        # The send failed: back ahead of a newer line; the oldest dropped again, counted with the first.
        b.add({"level": "info", "message": "5", "ts": 5})
        b.put_back(lines, dropped)
        again, dropped = b.take()
        self.assertEqual(dropped, 2)
        self.assertEqual([line["message"] for line in again[1:]], ["3", "4", "5"])
        self.assertTrue(again[0]["message"].startswith("sluice: 2 log line(s) dropped here"))
        self.assertEqual(b.take(), ([], 0))

    def test_which_failures_are_retried(self):
        self.assertTrue(retryable(SluiceAPIError(500, "INTERNAL", "x")))
        self.assertTrue(retryable(SluiceAPIError(502, "HTTP_ERROR", "x")))
        self.assertTrue(retryable(ConnectionResetError()))
        self.assertFalse(retryable(SluiceAPIError(409, "LEASE_LOST", "x")))
        self.assertFalse(retryable(SluiceAPIError(400, "INVALID_BODY", "x")))
        self.assertTrue(whole_refusal(SluiceAPIError(400, "INVALID_BODY", "x")))

    def test_refused_lines_go_again_without_their_time(self):
        lines = [{"message": "a", "ts": 1}, {"message": "b", "ts": 2}, {"message": "c"}]
        answer = {"accepted": 1, "refused": [{"line": 1, "code": "INVALID_LINE", "message": "ahead"},
                                             {"line": 2, "code": "INVALID_LINE", "message": "level"}]}
        again, why = refused_lines(lines, answer)
        # A line refused without a ts would be refused again: not resent.
        self.assertEqual(again, [{"message": "b"}])
        self.assertEqual(why, ["ahead", "level"])
        self.assertEqual(refused_lines(lines, {"accepted": 3}), ([], []))
        self.assertEqual(untimed(lines), [{"message": "a"}, {"message": "b"}, {"message": "c"}])


if __name__ == "__main__":
    unittest.main()
