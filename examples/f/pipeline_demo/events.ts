// pipeline
// partitioned daily
import * as wmill from 'windmill-client';

// One file of events per day; `partition` is injected (e.g. "2026-05-16").
export async function main(partition: string) {
	const events = [{ user: 'ana', kind: 'click' }, { user: 'bo', kind: 'view' }, { user: 'ana', kind: 'view' }];
	await wmill.writeS3File({ s3: `demo/events/${partition}.json` }, JSON.stringify(events));
}
