/** Whether `go` can run here, and the environment Go builds in tests use. */
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO } from "../helpers/project.js";

/** The Go SDK's folder. */
export const SDK = join(REPO, "sdk-go");

/** True when the `go` command runs. */
export const HAS_GO = spawnSync("go", ["version"], { encoding: "utf8" }).status === 0;

/** CI sets SLUICE_GO=required: a missing `go` then fails the Go tests instead of skipping them. */
export const GO_REQUIRED = process.env.SLUICE_GO === "required";

/**
 * A writable build cache that survives between runs (HOME may be read-only in CI), and
 * no module proxy: the SDK has no dependencies, so nothing may be downloaded.
 */
export const GO_ENV: Record<string, string> = {
  GOCACHE: join(tmpdir(), "sluice-test-gocache"),
  GOFLAGS: "",
  GOPROXY: "off",
  GOTOOLCHAIN: "local",
  CGO_ENABLED: "0",
};

/** Why the Go tests are skipped, for their titles. */
export const SKIP_REASON = "(skipped: `go` is not installed; apt-get install golang-go)";
