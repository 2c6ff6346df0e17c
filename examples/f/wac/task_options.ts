// Seed 000 "Core primitives / task()", with options. The seed shows two statements; they are
// placed in a workflow (with the `double` task from the basic example) so the module is complete.
import { task, workflow } from 'windmill-client';

async function double(n: number) {
	return n * 2;
}

export const main = workflow(async () => {
	// With explicit path and options
	const result = await task('f/my_folder/heavy_script', double, {
		timeout: 600,
		tag: 'gpu',
		cache_ttl: 3600,
		priority: 10,
		concurrency_limit: 5,
		concurrency_key: 'my_key',
		concurrency_time_window_s: 60
	})(42);

	// With options only (no path override)
	const result2 = await task(double, { timeout: 300, tag: 'highmem' })(42);
	return result + result2;
});
