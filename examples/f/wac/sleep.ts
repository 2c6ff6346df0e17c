// Seed 000 "Sleep". Reconstructed: the import line and the first reminder, following the Python
// version.
import { task, sleep, workflow } from 'windmill-client';

async function sendReminder(email: string) {
	console.log(`Reminder sent to ${email}`);
}

export const main = workflow(async (email: string) => {
	await task(sendReminder)(email);

	// Suspend for 1 hour without holding a worker
	await sleep(3600);

	await task(sendReminder)(email);
	return 'done';
});
