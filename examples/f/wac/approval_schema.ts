// Seed 000 "Approval / human-in-the-loop", with a full JSON Schema form (required/order). The seed
// shows the statement alone; it is placed in a workflow so the module is complete.
import { waitForApproval, workflow } from 'windmill-client';

export const main = workflow(async () => {
	const approval = await waitForApproval({
		form: {
			type: 'object',
			properties: {
				reason: { type: 'string' },
				environment: { type: 'string', enum: ['staging', 'production'] }
			},
			required: ['reason'],
			order: ['reason', 'environment']
		}
	});
	return approval;
});
