import { describe, expect, it } from "vitest";
import { buildPayload, splitPayload } from "./meta.js";

describe("pipeline run payloads", () => {
  it("splits arguments from Sluice's metadata and the seed's skip flag", () => {
    const split = splitPayload({ partition: "2026-05-16", limit: 3, _wmill_skip_asset_dispatch: true });
    expect(split).toEqual({
      args: { partition: "2026-05-16", limit: 3 },
      partition: "2026-05-16",
      meta: { trigger: "manual", depth: 0, cascade: false, cascadeOffReason: "_wmill_skip_asset_dispatch: true" },
    });
    const cascaded = splitPayload(
      buildPayload(
        { partition: "p" },
        { trigger: "cascade", depth: 2, firedAt: 5, upstream: { run: "r", script: "s.ts", assets: ["s3://a"] } },
      ),
    );
    expect(cascaded.meta).toEqual({
      trigger: "cascade",
      depth: 2,
      cascade: true,
      firedAt: 5,
      upstream: { run: "r", script: "s.ts", assets: ["s3://a"] },
    });
    expect(splitPayload({ _sluice: { cascade: false } }).meta).toMatchObject({
      cascade: false,
      cascadeOffReason: "_sluice.cascade: false",
    });
  });

  it("keeps positional payloads and empty ones, and refuses bad metadata or partitions", () => {
    expect(splitPayload([1, 2]).args).toEqual([1, 2]);
    expect(splitPayload(null)).toMatchObject({ args: {}, meta: { trigger: "manual", cascade: true } });
    expect(splitPayload({ partition: 7 }).partition).toBe("7");
    expect(() => splitPayload({ _sluice: "yes" })).toThrow(/_sluice must be an object/);
    expect(() => splitPayload({ partition: { day: 1 } })).toThrow(/partition must be a string/);
  });
});
