// Seed 000 "Script modules", a companion module. Reconstructed from the Python version.
// my_workflow__mod/transform.ts
export function main(data: any[]) {
	return { count: data.length, items: data };
}
