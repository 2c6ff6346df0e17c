/**
 * An OpenTelemetry context manager over Sluice's own `AsyncLocalStorage` (`sdk/runtime.ts`):
 * the active OpenTelemetry context is kept in the same store as the run's execution scope,
 * so a traced process propagates one store through each promise it makes instead of two (the
 * SDK's `AsyncLocalStorageContextManager` is a second `AsyncLocalStorage`, which costs every
 * promise of the process whether or not anything is sampled: docs/PERFORMANCE.md, "Tracing
 * overhead"). `sluice dev|worker|server --otel` registers it (`cli/otel.ts`); an application
 * that registers its own SDK keeps the context manager it chooses.
 *
 * Same behaviour as the SDK's manager for `active`, `with` and `bind` of a function: `with`
 * changes the OpenTelemetry context only (the execution scope of the caller is kept, as with a
 * separate store), and Sluice's scopes keep the caller's OpenTelemetry context. `bind` of an
 * `EventEmitter` (what HTTP instrumentations use) is not supported: the emitter is returned
 * unchanged; a process that needs instrumentations registers the SDK's manager itself.
 */
import { type Context, type ContextManager, ROOT_CONTEXT } from "@opentelemetry/api";
import { globalRuntime } from "../sdk/runtime.js";

/** See the module comment. */
export class SluiceContextManager implements ContextManager {
  private readonly als = globalRuntime().als;

  active(): Context {
    return (this.als.getStore()?.otel as Context | undefined) ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const store = this.als.getStore();
    const cb = thisArg == null ? fn : fn.bind(thisArg);
    return this.als.run({ scope: store?.scope, otel: context }, cb, ...args);
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== "function") return target;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the manager, called with the caller's `this`
    const manager = this;
    const fn = target as unknown as (...args: unknown[]) => unknown;
    return function (this: unknown, ...args: unknown[]) {
      return manager.with(context, () => fn.apply(this, args));
    } as unknown as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    return this;
  }
}
