"""Parses Prometheus text format from stdin with the official Python client's parser
(prometheus_client.parser, Debian's python3-prometheus-client) and prints the families
as JSON: [{"name", "type", "samples": [{"name", "labels", "value"}]}]. A malformed
exposition makes the parser raise, and this script exit non-zero."""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

families = [
    {
        "name": f.name,
        "type": f.type,
        "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples],
    }
    for f in text_string_to_metric_families(sys.stdin.read())
]
json.dump(families, sys.stdout)
