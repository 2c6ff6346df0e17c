import { describe, expect, it } from "vitest";
import { TransactionContext } from "./catalog-context.js";

describe("TransactionContext", () => {
  it("is empty outside any transaction", () => {
    expect(new TransactionContext<number>().get()).toBeUndefined();
  });

  it("holds each connection's own transaction, across awaits, nested in another's", async () => {
    const a = new TransactionContext<string>();
    const b = new TransactionContext<string>();
    await a.run("tx-a", async () => {
      await Promise.resolve();
      expect(a.get()).toBe("tx-a");
      expect(b.get()).toBeUndefined();
      await b.run("tx-b", async () => {
        await new Promise((r) => setTimeout(r, 1));
        expect(a.get()).toBe("tx-a");
        expect(b.get()).toBe("tx-b");
      });
      expect(b.get()).toBeUndefined();
    });
    expect(a.get()).toBeUndefined();
  });

  it("is not seen by work started outside the transaction", async () => {
    const a = new TransactionContext<true>();
    let seen: boolean | undefined;
    const outside = new Promise<void>((r) => setTimeout(r, 5)).then(() => {
      seen = a.get();
    });
    await a.run(true, () => outside);
    expect(seen).toBeUndefined();
  });
});
