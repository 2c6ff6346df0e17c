"""wmill._lake_calls: the ducklake() helper calls of a Python script, from Python's own ast."""
import unittest

from wmill._lake_calls import findings

SOURCE = '''import wmill
from wmill import ducklake

lake = wmill.ducklake("shop")
NOTE = "wmill.ducklake('shop').upsert_partition('in_a_string', [])"
# wmill.ducklake("shop").append_partition("in_a_comment", [])

def main(table: str, name: str):
    lake.upsert_partition("orders", [{"id": 1}], key="id")
    ducklake().append_partition(table="events", rows=[])
    old = lake.read("orders", version=3)
    lake.append_partition(table, [])
    wmill.ducklake(name).upsert_partition("computed_lake", [])
    {"x": 1}.get("read")
'''


class LakeCallsTest(unittest.TestCase):
    def test_writes_reads_and_dynamic_tables(self):
        f = findings(SOURCE, "a.py")
        self.assertEqual(
            f["detections"],
            [
                {"uri": "ducklake://shop/orders", "access": "write", "line": 9, "via": "ducklake().upsert_partition"},
                {"uri": "ducklake://main/events", "access": "write", "line": 10, "via": "ducklake().append_partition"},
                {"uri": "ducklake://shop/orders", "access": "read", "line": 11, "via": "ducklake().read"},
            ],
        )
        self.assertEqual(f["dynamic"], [{"line": 12, "via": "ducklake().append_partition"}])
        self.assertEqual(sorted(f["clients"]), ["ducklake://main", "ducklake://shop"])
        self.assertEqual(f["warnings"], [])

    def test_a_name_bound_to_two_lakes_is_not_followed(self):
        f = findings('a = ducklake("one")\na = ducklake("two")\na.upsert_partition("t", [])\n', "b.py")
        self.assertEqual(f["detections"], [])

    def test_a_syntax_error_is_a_warning_with_its_line(self):
        f = findings("def main(:\n    pass\n", "c.py")
        self.assertEqual(f["detections"], [])
        self.assertEqual([(w["line"], w["code"]) for w in f["warnings"]], [(1, "DETECT_SYNTAX_ERROR")])


if __name__ == "__main__":
    unittest.main()
