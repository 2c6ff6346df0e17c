/**
 * The in-process trace tests again, with Sluice's context manager registered (the OpenTelemetry
 * context in Sluice's own AsyncLocalStorage, as `--otel` registers it) instead of the SDK's:
 * the same spans, parentage and active spans in step bodies. Each test file runs in its own
 * worker, so the setting stays in this file.
 */
import { context, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { currentScope, runInScope, type ExecutionScope } from "../../src/sdk/runtime.js";
import { SluiceContextManager } from "../../src/worker/otel-context.js";

process.env.SLUICE_TEST_OTEL_CONTEXT = "sluice";
await import("./in-process.test.js");

describe("Sluice's context manager", () => {
  const scope = { execution: {}, stepKey: "s", runtime: {} } as unknown as ExecutionScope;
  const manager = new SluiceContextManager();
  const key = Symbol("k");

  it("keeps the execution scope across context.with and the context across Sluice's scopes, after awaits", async () => {
    const ctx = ROOT_CONTEXT.setValue(key, 1);
    await runInScope(scope, async () => {
      await manager.with(ctx, async () => {
        await new Promise((r) => setTimeout(r, 1));
        expect(currentScope()).toBe(scope);
        expect(manager.active().getValue(key)).toBe(1);
        const inner = { ...scope, stepKey: "t" };
        await runInScope(inner, async () => {
          await Promise.resolve();
          expect(currentScope()).toBe(inner);
          expect(manager.active().getValue(key)).toBe(1);
        });
        expect(currentScope()).toBe(scope);
      });
      expect(manager.active()).toBe(ROOT_CONTEXT);
      expect(currentScope()).toBe(scope);
    });
    expect(currentScope()).toBeUndefined();
  });

  it("binds a function to a context, with its this and arguments; leaves other targets alone", () => {
    const ctx = ROOT_CONTEXT.setValue(key, "bound");
    const bound = manager.bind(ctx, function (this: { n: number }, m: number) {
      return [this.n + m, manager.active().getValue(key)];
    });
    expect(bound.call({ n: 1 }, 2)).toEqual([3, "bound"]);
    const target = { on() {} };
    expect(manager.bind(ctx, target)).toBe(target);
    // The registered manager (in-process.test.ts registered one of this kind, over the same store)
    // sees what this one set: the in-process tests above ran with it.
    expect(context.active()).toBe(ROOT_CONTEXT);
    expect(manager.with(ctx, () => context.active().getValue(key))).toBe("bound");
    expect(trace.getSpan(context.active())).toBeUndefined();
  });
});
