// Waits for a signal: `sluice signal approval:order-ord_1 '{"approved":true,"by":"ana"}'`.
import { defineWorkflow } from "tako.sh";

export default defineWorkflow<{ orderId: string }>("order-approval", {
  handler: async (payload, ctx) => {
    const decision = await ctx.waitFor<{ approved: boolean; by: string }>(`approval:order-${payload.orderId}`, {
      timeout: 7 * 24 * 60 * 60 * 1000,
    });
    // `return` lets TypeScript narrow `decision` (bail never returns either way).
    if (decision === null) return ctx.bail("approval timed out");
    if (!decision.approved) return ctx.bail(`rejected by ${decision.by}`);
    return { approvedBy: decision.by };
  },
});
