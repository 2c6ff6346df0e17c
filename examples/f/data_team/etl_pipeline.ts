// A workflow referenced by taskFlow('f/data_team/etl_pipeline') in f/wac/task_script_flow.ts.
import { task, workflow } from 'windmill-client';

async function countRows(data: unknown[]) {
	return data.length;
}

export const main = workflow(async (data: unknown[]) => {
	const rows = await task(countRows)(data);
	return { rows };
});
