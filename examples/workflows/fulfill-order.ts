// Seed 002's first example, with the app's db, payments and mailer replaced by tiny in-memory stand-ins.
import { defineWorkflow } from "tako.sh";
import { db, mailer, payments } from "../lib/shop";

type FulfillOrderPayload = {
  orderId: string;
};

export default defineWorkflow<FulfillOrderPayload>("fulfill-order", {
  retries: 4,
  handler: async (payload, ctx) => {
    const order = await ctx.run("load-order", () => db.orders.find(payload.orderId));

    await ctx.run("charge", () =>
      payments.charge({
        orderId: order.id,
        amount: order.total,
        idempotencyKey: `${ctx.runId}:charge`,
      }),
    );

    await ctx.run("send-receipt", () => mailer.send(order.email));
    return { orderId: order.id, charged: order.total };
  },
});
