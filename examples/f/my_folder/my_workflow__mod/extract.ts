// Seed 000 "Script modules", a companion module. Reconstructed from the Python version.
// my_workflow__mod/extract.ts
export async function main(url: string) {
	const resp = await fetch(url);
	return resp.json();
}
