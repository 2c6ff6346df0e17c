// pipeline
// on s3://demo/raw.json
// freshness 1d
import * as wmill from 'windmill-client';

// Seed 001's Quickstart, step 2: runs whenever raw.json is written (and at least daily).
export async function main() {
	const rows = JSON.parse(await wmill.loadS3File({ s3: 'demo/raw.json' }));
	await wmill.writeS3File({ s3: 'demo/sum.json' }, JSON.stringify({ sum: rows.length }));
}
