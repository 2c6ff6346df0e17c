// Seed 000 "Error handling". Reconstructed: the import line and the workflow opening with the try
// block, following the Python version.
import { task, workflow } from 'windmill-client';

async function riskyOperation(data: string) {
	if (data === 'bad') throw new Error('Invalid data');
	return `processed: ${data}`;
}

async function fallback(error: string) {
	return `fallback result for: ${error}`;
}

export const main = workflow(async (data: string) => {
	try {
		return await task(riskyOperation)(data);
	} catch (e) {
		console.log(`Task failed: ${e.message}`);
		return await task(fallback)(e.message);
	}
});
