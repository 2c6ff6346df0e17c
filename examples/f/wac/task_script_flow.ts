// Seed 000 "Referencing external scripts and flows". Reconstructed: the import line and the first
// taskScript call, following the Python version.
import { taskScript, taskFlow, workflow } from 'windmill-client';

export const main = workflow(async () => {
	// Run an existing script by path
	const data = await taskScript('f/data_team/extract_users')({ limit: 100 });

	// Run an existing flow by path
	const result = await taskFlow('f/data_team/etl_pipeline')({ data });

	// With options
	const heavy = await taskScript('f/ml/train_model', {
		timeout: 3600,
		tag: 'gpu'
	})({ dataset: data });

	return { result, heavy };
});
