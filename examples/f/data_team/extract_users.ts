// A script referenced by taskScript('f/data_team/extract_users') in f/wac/task_script_flow.ts.
export async function main(limit: number = 10) {
	return Array.from({ length: Math.min(limit, 3) }, (_, i) => ({ id: i + 1, name: `user ${i + 1}` }));
}
