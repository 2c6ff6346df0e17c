/**
 * Parses a Prometheus text exposition with a real parser: the official Prometheus Python
 * client's (`prometheus_client.parser`, Debian's `python3-prometheus-client`, installed
 * by `.ci/run`). The npm parsers looked at (`parse-prometheus-text-format` 1.1.1) drop the
 * labels, count and sum of labelled histograms, so they cannot check these figures.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";

/** The Python that has `prometheus_client` (Debian's, not a pyenv shim). */
const PROMETHEUS_PYTHON = "/usr/bin/python3";

/** One parsed sample: `name` keeps its suffix (`_bucket`, `_sum`, `_count`, `_total`). */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** One parsed family (`name` without suffixes). */
export interface PromFamily {
  name: string;
  type: string;
  samples: PromSample[];
}

/** True when the parser can run here. */
export function prometheusParserAvailable(): boolean {
  try {
    execFileSync(PROMETHEUS_PYTHON, ["-c", "import prometheus_client.parser"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Parses `text`; throws when it is not valid Prometheus text format. */
export function parsePrometheus(text: string): Map<string, PromFamily> {
  const out = execFileSync(PROMETHEUS_PYTHON, [join(import.meta.dirname, "prometheus_parse.py")], {
    input: text,
    encoding: "utf8",
  });
  return new Map((JSON.parse(out) as PromFamily[]).map((f) => [f.name, f]));
}

/** The value of the sample `name` whose labels include `labels`, or undefined. */
export function promValue(
  families: Map<string, PromFamily>,
  family: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return families
    .get(family)
    ?.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}
