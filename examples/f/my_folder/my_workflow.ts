// Seed 000 "Script modules", the main script. Reconstructed: the import line and the extract
// call, following the Python version.
// my_workflow.ts (main script)
import { taskScript, workflow } from 'windmill-client';

export const main = workflow(async (url: string) => {
	const data = await taskScript('./extract.ts')({ url });
	const result = await taskScript('./transform.ts')({ data });
	return result;
});
