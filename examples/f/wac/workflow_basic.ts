// Seed 000 "Core primitives / workflow()" and "API reference / workflow(fn)". Reconstructed from
// the Python version: only `});` survived in the TypeScript block.
import { workflow } from 'windmill-client';

export const main = workflow(async (x: number, y: number) => {
	// orchestration logic here
	return x + y;
});
