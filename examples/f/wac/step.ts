// Seed 000 "Core primitives / step()". Reconstructed: the import line and the workflow opening with
// the order_id step, following the Python version.
import { step, task, workflow } from 'windmill-client';

async function processOrder(orderId: string, ts: string) {
	console.log(`Processing order ${orderId} created at ${ts}`);
	return { orderId, ts, status: 'processed' };
}

export const main = workflow(async () => {
	// These values are computed once and cached across replays
	const orderId = await step('order_id', () => crypto.randomUUID());
	const timestamp = await step('timestamp', () => new Date().toISOString());

	return await task(processOrder)(orderId, timestamp);
});
