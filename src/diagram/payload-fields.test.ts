import { describe, expect, it } from "vitest";
import { payloadFields } from "./payload-fields.js";

describe("payloadFields", () => {
  it("reads defineWorkflow<T>'s type alias or interface in the same file, optional fields apart", () => {
    const alias = `type P = { orderId: string; note?: string };
export default defineWorkflow<P>("fulfill-order", { handler: async (p, ctx) => p.orderId });`;
    expect(payloadFields(alias, "fulfill-order")).toEqual({ names: ["orderId", "note"], required: ["orderId"] });
    const iface = `interface P { "to": string }
export default defineWorkflow<P>("mail", { handler: async (p) => p.to });`;
    expect(payloadFields(iface, "mail")).toEqual({ names: ["to"], required: ["to"] });
  });

  it("reads the handler's first parameter annotation when there is no type argument", () => {
    const src = `export default defineWorkflow("slow", { handler: async (p: { ms?: number }, ctx) => p.ms });`;
    expect(payloadFields(src, "slow")).toEqual({ names: ["ms"], required: [] });
  });

  it("is null for another workflow's name, an imported type, or a type that is not an object literal", () => {
    const src = `import type { P } from "./p";
defineWorkflow<P>("a", { handler: async (p) => p });
defineWorkflow<string>("b", { handler: async (p) => p });
defineWorkflow("c", { handler: async (p) => p });`;
    for (const name of ["a", "b", "c", "zzz"]) expect(payloadFields(src, name), name).toBeNull();
  });
});
