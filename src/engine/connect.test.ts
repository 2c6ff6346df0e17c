import { describe, expect, it } from "vitest";
import { databaseFromEnvironment, environmentConnector } from "./connect.js";

describe("the producer's database, from the environment", () => {
  it("takes SLUICE_DATABASE_URL, else SLUICE_DATABASE, ignoring blank values", () => {
    expect(databaseFromEnvironment({})).toBeNull();
    expect(databaseFromEnvironment({ SLUICE_DATABASE: "  " })).toBeNull();
    expect(databaseFromEnvironment({ SLUICE_DATABASE: " app.db " })).toBe("app.db");
    expect(databaseFromEnvironment({ SLUICE_DATABASE_URL: "postgres://h/db", SLUICE_DATABASE: "app.db" })).toBe(
      "postgres://h/db",
    );
    expect(databaseFromEnvironment({ SLUICE_DATABASE_URL: "", SLUICE_DATABASE: "app.db" })).toBe("app.db");
  });
  it("connects to nothing when nothing is configured", async () => {
    await expect(environmentConnector({})()).resolves.toBeNull();
  });
});
