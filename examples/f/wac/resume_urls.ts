// Seed 000 "Approval / getResumeUrls()". Reconstructed: the import line and the get_urls step,
// following the Python version. sendSlackMessage is not shown in the seed; a stub stands in.
import { step, waitForApproval, workflow, getResumeUrls } from 'windmill-client';

async function sendSlackMessage(text: string) {
	console.log(`Slack: ${text}`);
}

export const main = workflow(async () => {
	const urls = await step('get_urls', () => getResumeUrls());
	// urls.approvalPage — link to the Windmill approval UI
	// urls.resume       — POST endpoint to approve programmatically
	// urls.cancel       — POST endpoint to reject programmatically

	// Send the approval page link via your notification system
	await step('notify', () => sendSlackMessage(urls.approvalPage));

	const result = await waitForApproval({ timeout: 86400 });
	return result;
});
