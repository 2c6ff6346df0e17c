// Seed 000 "Quickstart". Reconstructed: the import line and the workflow opening (with the
// started_at step) follow the Python version beside it.
import { task, step, workflow, sleep } from 'windmill-client';

async function fetchData(url: string) {
	const resp = await fetch(url);
	return resp.json();
}

async function transform(data: any) {
	return { count: data.length, summary: data.slice(0, 5) };
}

async function notify(message: string) {
	console.log(`Sending notification: ${message}`);
	return 'sent';
}

export const main = workflow(async (url: string) => {
	// step() persists lightweight inline results (timestamps, IDs, config)
	const startedAt = await step('started_at', () => new Date().toISOString());

	// task() runs each function as a separate Windmill job
	const data = await task(fetchData)(url);
	const result = await task(transform)(data);

	// sleep() suspends the workflow server-side without holding a worker
	await sleep(5);

	await task(notify)(`Processed ${result.count} items since ${startedAt}`);
	return result;
});
