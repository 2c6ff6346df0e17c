import { describe, expect, it } from "vitest";
import { detectAssets } from "./detect-assets.js";

describe("volume detection", () => {
  it("detects volume writes and reads from TypeScript and Python, with {partition}", () => {
    const ts = detectAssets(
      'await wmill.writeVolumeFile(\'models\', `daily/${partition}.bin`, data);\nconst m = await wmill.loadVolumeFile("models", "base.bin");',
      { language: "typescript" },
    );
    expect(ts.writes.map((w) => w.asset.uri)).toEqual(["volume://models/daily/{partition}.bin"]);
    expect(ts.reads.map((r) => r.asset.uri)).toEqual(["volume://models/base.bin"]);
    const py = detectAssets('wmill.write_volume_file("reports", f"{partition}.txt", text)', { language: "python" });
    expect(py.writes.map((w) => w.asset.uri)).toEqual(["volume://reports/{partition}.txt"]);
  });

  it("reports a volume path built at run time as untracked", () => {
    const d = detectAssets("await wmill.writeVolumeFile(name, 'x.txt', data);", { language: "typescript" });
    expect(d.writes).toEqual([]);
    expect(d.diagnostics.map((x) => x.code)).toEqual(["DETECT_DYNAMIC_PATH"]);
  });
});
