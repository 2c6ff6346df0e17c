/** In-memory stand-ins for an app's database, payment provider and mailer. */
const orders = new Map([["ord_123", { id: "ord_123", total: 4200, email: "ana@example.com" }]]);

export const db = {
  orders: {
    async find(id: string) {
      return orders.get(id) ?? { id, total: 1000, email: `${id}@example.com` };
    },
  },
};

const charged = new Map<string, number>();
export const payments = {
  /** Idempotent by key, like a real provider: a retried step does not charge twice. */
  async charge(req: { orderId: string; amount: number; idempotencyKey: string }) {
    if (!charged.has(req.idempotencyKey)) charged.set(req.idempotencyKey, req.amount);
    return { chargeId: `ch_${req.idempotencyKey}`, amount: charged.get(req.idempotencyKey) };
  },
};

export const mailer = {
  async send(to: string) {
    console.log(`receipt sent to ${to}`);
    return { to };
  },
};
