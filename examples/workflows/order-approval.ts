// Waits for a signal: `sluice signal approval:order-ord_1 '{"approved":true,"by":"ana"}'`.
import { defineWorkflow } from "tako.sh";

export default defineWorkflow<{ orderId: string }>("order-approval", {
  handler: async (payload, ctx) => {
    const decision = await ctx.waitFor<{ approved: boolean; by: string }>(`approval:order-${payload.orderId}`, {
      timeout: 7 * 24 * 60 * 60 * 1000,
    });
    if (decision === null) ctx.bail("approval timed out");
    if (!decision.approved) ctx.bail(`rejected by ${decision.by}`);
    return { approvedBy: decision.by };
  },
});
