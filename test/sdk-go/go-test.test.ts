/** `go vet` and `go test ./...` of the Go SDK (sdk-go/), run as part of npm test. */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GO_ENV, GO_REQUIRED, HAS_GO, SDK, SKIP_REASON } from "./go-env.js";

describe("Go SDK", () => {
  it.runIf(GO_REQUIRED)("go is installed (SLUICE_GO=required)", () => {
    expect(HAS_GO, "go is missing: apt-get install golang-go").toBe(true);
  });

  it.skipIf(!HAS_GO)(
    HAS_GO ? "go vet and go test ./... pass" : `go test ./... ${SKIP_REASON}`,
    () => {
      mkdirSync(GO_ENV.GOCACHE!, { recursive: true });
      const env = { ...process.env, ...GO_ENV };
      const vet = spawnSync("go", ["vet", "./..."], { cwd: SDK, env, encoding: "utf8" });
      expect(vet.status, vet.stderr).toBe(0);
      const test = spawnSync("go", ["test", "-count=1", "./..."], { cwd: SDK, env, encoding: "utf8" });
      expect(test.status, test.stdout + test.stderr).toBe(0);
      expect(test.stdout).toMatch(/^ok\s+sluice\.dev\/sdk-go\s/m);
    },
    180_000,
  );
});
