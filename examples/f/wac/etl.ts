// Seed 000 "Examples / ETL pipeline with retry". Reconstructed: the import line and the extract
// step (parallel over endpoints, concurrency 10), following the Python version.
import { task, workflow, parallel } from 'windmill-client';

async function extractFromApi(endpoint: string) {
	const resp = await fetch(endpoint);
	if (!resp.ok) throw new Error(`HTTP ${resp.status}`);
	return resp.json();
}

async function transformRecord(record: any) {
	return { ...record, transformed: true, processedAt: new Date().toISOString() };
}

async function loadBatch(records: any[]) {
	console.log(`Loading ${records.length} records`);
	return { loaded: records.length };
}

export const main = workflow(async (endpoints: string[]) => {
	// Extract from multiple APIs in parallel
	const rawData = await parallel(endpoints, (endpoint) => task(extractFromApi)(endpoint), {
		concurrency: 10
	});

	// Transform all records in parallel
	const allRecords = rawData.flat();
	const transformed = await parallel(allRecords, (record) => task(transformRecord)(record), {
		concurrency: 20
	});

	// Load in a single batch
	return await task(loadBatch)(transformed);
});
