// pipeline
// on webhook
// partitioned dynamic key="$.tenant_id"
import * as wmill from 'windmill-client';

// POST /api/pipelines/webhook/f/pipeline_demo/receive {"tenant_id": "acme", "amount": 5}
export async function main(partition: string, amount: number) {
	await wmill.writeS3File({ s3: `demo/tenants/${partition}.json` }, JSON.stringify({ tenant: partition, amount }));
	return { tenant: partition, amount };
}
