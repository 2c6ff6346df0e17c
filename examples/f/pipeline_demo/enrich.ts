// pipeline
// on s3://demo/events/{partition}.json
// on s3://demo/sessions/{partition}.json
// on s3://demo/raw.json
// trigger all
// partitioned daily
import * as wmill from 'windmill-client';

// Runs once per day when both the day's events and sessions exist (an AND join);
// rewriting the unpartitioned raw.json reference does not fire it. A run started by hand
// (`sluice pipeline run f/pipeline_demo --from events.ts --to rollup.sql --partition <day>`)
// needs the day's sessions too: loadS3File fails naming the missing object until sessions.py
// has run for that day.
export async function main(partition: string) {
	const events = JSON.parse(await wmill.loadS3File({ s3: `demo/events/${partition}.json` }));
	const sessions = JSON.parse(await wmill.loadS3File({ s3: `demo/sessions/${partition}.json` }));
	const minutes = new Map(sessions.map((s: { user: string; minutes: number }) => [s.user, s.minutes]));
	const enriched = events.map((e: { user: string; kind: string }) => ({ ...e, day: partition, minutes: minutes.get(e.user) ?? 0 }));
	await wmill.writeS3File({ s3: `demo/enriched/${partition}.json` }, enriched.map((r: object) => JSON.stringify(r)).join('\n'));
	return { rows: enriched.length };
}
