// Seed 000 "Parallel execution / Using parallel()". Reconstructed: the import line and the items
// list, following the Python version.
import { task, parallel, workflow } from 'windmill-client';

async function processItem(item: number) {
	return item * 2;
}

export const main = workflow(async () => {
	const items = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

	// Process all items in parallel (default: all at once)
	const results = await parallel(items, (item) => task(processItem)(item));

	// With concurrency control: process at most 3 at a time
	const batched = await parallel(items, (item) => task(processItem)(item), { concurrency: 3 });

	return { results, batched };
});
