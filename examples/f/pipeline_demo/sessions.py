# pipeline
# partitioned daily
import json

import wmill


# One file of sessions per day, written from Python through Sluice's wmill module.
def main(partition: str):
    sessions = [{"user": "ana", "minutes": 12}, {"user": "bo", "minutes": 3}]
    wmill.write_s3_file({"s3": f"demo/sessions/{partition}.json"}, json.dumps(sessions))
    return {"sessions": len(sessions)}
