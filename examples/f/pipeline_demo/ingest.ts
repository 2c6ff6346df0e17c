// pipeline
// on schedule
import * as wmill from 'windmill-client';

// Seed 001's Quickstart, step 1 (plus an hourly schedule row in pipeline.json).
export async function main() {
	await wmill.writeS3File({ s3: 'demo/raw.json' }, JSON.stringify([{ n: 1 }, { n: 2 }]));
}
