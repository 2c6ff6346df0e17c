import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../store/sqlite/store.js";
import { scopeAllows } from "./scopes.js";
import { ApiTokens } from "./tokens.js";

const dir = mkdtempSync(join(tmpdir(), "sluice-tokens-"));
const store = openSqliteStore({ path: join(dir, "t.db") });
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("ApiTokens on a real SQLite store", () => {
  it("stores only a hash; verifies, lists and revokes", async () => {
    const tokens = new ApiTokens(store, { now: () => 1_000 });
    const { token, record } = await tokens.create({ name: "alice", scope: "operate" });
    expect(record).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{16}$/),
      name: "alice",
      scope: "operate",
      createdAt: 1_000,
    });
    const stored = (await store.kvList("api-token:"))[0]!.value;
    expect(stored).not.toContain(token.split("_").slice(2).join("_"));
    expect(JSON.parse(stored).hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await tokens.verify(token)).toEqual(record);
    const tampered = token.slice(0, -1) + (token.endsWith("A") ? "B" : "A");
    expect(await tokens.verify(tampered)).toBeNull();
    expect(await tokens.verify("sluice_ffffffffffffffff_" + token.slice(-43))).toBeNull();
    expect(await tokens.verify("garbage")).toBeNull();
    expect((await tokens.list()).map((t) => t.name)).toEqual(["alice"]);
    expect(await tokens.revoke(record.id)).toBe(true);
    expect(await tokens.verify(token)).toBeNull();
    expect(await tokens.revoke(record.id)).toBe(false);
    expect(await tokens.revoke("../x")).toBe(false);
  });

  it("validates names and scopes", async () => {
    const tokens = new ApiTokens(store);
    await expect(tokens.create({ name: "", scope: "read" })).rejects.toThrow(/invalid token name/);
    await expect(tokens.create({ name: "bob", scope: "root" })).rejects.toThrow(
      /unknown scope "root": use metrics, read, operate, worker or admin/,
    );
  });

  it("orders scopes read < operate < admin", () => {
    expect(scopeAllows("admin", "operate")).toBe(true);
    expect(scopeAllows("operate", "operate")).toBe(true);
    expect(scopeAllows("read", "operate")).toBe(false);
    expect(scopeAllows("operate", "admin")).toBe(false);
    expect(scopeAllows("read", "metrics")).toBe(true);
    expect(scopeAllows("metrics", "read")).toBe(false);
  });
});
