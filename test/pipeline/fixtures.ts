/** Scripts shared by the pipeline end-to-end tests (seed 001's join example, a noisy producer, a cycle). */

/** A daily producer writing `s3://lake/raw/<what>/{partition}/<what>.parquet`. */
export const producer = (what: string) => `// pipeline
// partitioned daily
import * as wmill from 'windmill-client';

export async function main(partition: string) {
	await wmill.writeS3File(
		{ s3: \`lake/raw/${what}/\${partition}/${what}.parquet\` },
		JSON.stringify([{ ${what}: partition }])
	);
}
`;

/** The unpartitioned customers reference. */
export const CUSTOMERS = `// pipeline
import * as wmill from 'windmill-client';

export async function main() {
	await wmill.writeS3File({ s3: 'lake/dim/customers/current.parquet' }, JSON.stringify([{ customer: 'acme' }]));
}
`;

/** The seed's join step; `join` is the example's own helper, defined here. */
export const ENRICH = `// Daily enriched table: join the day's events with the day's sessions
// (both partitioned, must agree on the day) plus the current customers
// dimension (unpartitioned reference).
//
// pipeline
// on s3://lake/raw/events/{partition}/events.parquet
// on s3://lake/raw/sessions/{partition}/sessions.parquet
// on s3://lake/dim/customers/current.parquet
// trigger all
// partitioned daily
import * as wmill from 'windmill-client';

const join = (...parts: Uint8Array[]) => JSON.stringify(parts.map((p) => JSON.parse(String(p))));

export async function main(partition: string) {
	// guaranteed: both partition-bearing inputs exist for \`partition\`
	const events = await wmill.loadS3File({ s3: \`lake/raw/events/\${partition}/events.parquet\` });
	const sessions = await wmill.loadS3File({ s3: \`lake/raw/sessions/\${partition}/sessions.parquet\` });
	const customers = await wmill.loadS3File({ s3: 'lake/dim/customers/current.parquet' });
	await wmill.writeS3File(
		{ s3: \`lake/marts/enriched/\${partition}/data.parquet\` },
		join(events, sessions, customers)
	);
}
`;

/** Writes `s3://noisy/data.json` with its argument. */
export const TICK = `// pipeline
import * as wmill from 'windmill-client';

export async function main(n: number) {
	await wmill.writeS3File({ s3: 'noisy/data.json' }, JSON.stringify({ n }));
}
`;
/** Debounced (1s) consumer of `s3://noisy/data.json`. */
export const CONSUME = `// pipeline
// on s3://noisy/data.json
// debounce 1s
import * as wmill from 'windmill-client';

export async function main() {
	const data = JSON.parse(await wmill.loadS3File({ s3: 'noisy/data.json' }));
	await wmill.writeS3File({ s3: 'noisy/out.json' }, JSON.stringify(data));
	return data.n;
}
`;
/** One half of a two-script cycle. */
export const LOOP = (me: string, other: string) => `// pipeline
// on s3://loop/${other}.json
import * as wmill from 'windmill-client';

export async function main() {
	await wmill.writeS3File({ s3: 'loop/${me}.json' }, String(Date.now()));
}
`;
