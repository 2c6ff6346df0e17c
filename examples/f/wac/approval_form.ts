// Seed 000 "Approval / human-in-the-loop", with a form whose fields are passed directly as keys.
// The seed shows the statements alone; they are placed in a workflow so the module is complete.
import { waitForApproval, workflow } from 'windmill-client';

export const main = workflow(async () => {
	const approval = await waitForApproval({
		timeout: 7200,
		form: {
			reason: { type: 'string', description: 'Approval reason' },
			environment: { type: 'string', enum: ['staging', 'production'] }
		}
	});
	// The approver fills in the form on the approval page.
	// approval.value contains the submitted form data, e.g.:
	// { reason: "LGTM", environment: "production" }
	console.log(approval.value.reason);      // "LGTM"
	console.log(approval.value.environment); // "production"
	return approval.value;
});
