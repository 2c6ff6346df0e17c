// Seed 000 "Parallel execution / Using Promise.all". Reconstructed: the import line and the first
// Promise.all (three fetchUser calls), following the Python asyncio.gather version.
import { task, workflow } from 'windmill-client';

async function fetchUser(id: number) {
	return { id, name: `User ${id}` };
}

async function enrichUser(user: any) {
	return { ...user, enriched: true };
}

export const main = workflow(async () => {
	// All three fetches dispatch as child jobs simultaneously
	const [user1, user2, user3] = await Promise.all([
		task(fetchUser)(1),
		task(fetchUser)(2),
		task(fetchUser)(3)
	]);

	// Enrich in parallel too
	const [e1, e2, e3] = await Promise.all([
		task(enrichUser)(user1),
		task(enrichUser)(user2),
		task(enrichUser)(user3)
	]);

	return [e1, e2, e3];
});
