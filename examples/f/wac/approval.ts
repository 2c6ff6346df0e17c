// Seed 000 "Approval / human-in-the-loop", without a form. Reconstructed: the import line and the
// waitForApproval call (timeout 3600, selfApproval false), following the Python version.
import { task, waitForApproval, workflow } from 'windmill-client';

async function deploy(env: string) {
	console.log(`Deploying to ${env}`);
	return `deployed to ${env}`;
}

export const main = workflow(async (env: string) => {
	const approval = await waitForApproval({
		timeout: 3600,
		selfApproval: false // require a different user to approve
	});

	if (!approval.approved) {
		return `Deployment rejected by ${approval.approver}`;
	}

	return await task(deploy)(env);
});
