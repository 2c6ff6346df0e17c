// Seed 000 "Examples / Scheduled retry with backoff". Reconstructed: the import line. The API URL
// can be pointed elsewhere with SUBMIT_API_URL (the tests use a local server).
import { task, workflow, sleep } from 'windmill-client';

async function callExternalApi(payload: any) {
	const resp = await fetch(process.env.SUBMIT_API_URL ?? 'https://api.example.com/submit', {
		method: 'POST',
		body: JSON.stringify(payload)
	});
	if (!resp.ok) throw new Error(`API error: ${resp.status}`);
	return resp.json();
}

export const main = workflow(async (payload: any, maxRetries: number = 3) => {
	for (let attempt = 1; attempt <= maxRetries; attempt++) {
		try {
			return await task(callExternalApi)(payload);
		} catch (e) {
			if (attempt === maxRetries) throw e;
			// Exponential backoff: 30s, 60s, 120s — worker is free during each sleep
			const delay = 30 * Math.pow(2, attempt - 1);
			await sleep(delay);
		}
	}
});
