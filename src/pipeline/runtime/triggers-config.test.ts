import { describe, expect, it } from "vitest";
import { parseTriggersFile } from "./triggers-config.js";

describe("pipeline.json trigger rows", () => {
  it("reads schedules, webhooks and consumed kinds (every kind of seed 001 is run now)", () => {
    const gcp = { projectId: "my-project", subscription: "sluice-ingest" };
    const file = parseTriggersFile(
      JSON.stringify({ triggers: { ingest: { schedule: "0 6 * * *", webhook: true, gcp } } }),
      "f/x/pipeline.json",
    );
    expect(file.byScript.get("ingest")).toEqual({
      schedule: { cron: "0 6 * * *", timezone: "UTC" },
      webhook: true,
      consumed: { gcp },
    });
    expect(file.diagnostics).toEqual([]);
    const bad = parseTriggersFile(JSON.stringify({ triggers: { ingest: { gcp: { subscription: "t" } } } }), "p.json");
    expect(bad.diagnostics).toMatchObject([{ severity: "error", code: "TRIGGER_ROW_INVALID" }]);
    expect(bad.diagnostics[0]!.message).toContain('"projectId" must be a non-empty string');
  });

  it("reports a bad file or cron as an error naming the file", () => {
    expect(parseTriggersFile("{", "p.json").diagnostics[0]).toMatchObject({
      severity: "error",
      code: "TRIGGERS_FILE_INVALID",
    });
    const bad = parseTriggersFile(JSON.stringify({ triggers: { a: { schedule: { cron: "every day" } } } }), "p.json");
    expect(bad.diagnostics[0]).toMatchObject({ severity: "error", code: "TRIGGER_SCHEDULE_INVALID" });
    expect(bad.diagnostics[0]!.message).toContain("five-field cron");
    expect(parseTriggersFile(undefined, "p.json").byScript.size).toBe(0);
  });
});

describe("pipeline.json rows of consumed kinds", () => {
  it("keeps an MQTT row for the step, and reports a bad one as an error naming the row", () => {
    const file = parseTriggersFile(
      JSON.stringify({ triggers: { ingest: { mqtt: { url: "mqtt://127.0.0.1:1883", topic: "a/#" } } } }),
      "f/x/pipeline.json",
    );
    expect(file.byScript.get("ingest")).toEqual({
      consumed: { mqtt: { url: "mqtt://127.0.0.1:1883", topic: "a/#" } },
    });
    expect(file.diagnostics).toEqual([]);
    const bad = parseTriggersFile(JSON.stringify({ triggers: { ingest: { nats: { stream: "S" } } } }), "p.json");
    expect(bad.diagnostics[0]).toMatchObject({ severity: "error", code: "TRIGGER_ROW_INVALID" });
    expect(bad.diagnostics[0]!.message).toMatch(/p\.json triggers\.ingest\.nats: "url" must be a string/);
  });
});
