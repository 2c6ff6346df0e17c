import { openStore, storeReady } from "../../src/store/open.js";
import { testDatabase, withDatabase } from "../helpers/postgres.js";
import { runStoreContract } from "./store.contract.js";

// One database for this file, one schema per test: every test starts empty and migrates from scratch.
// Opened as every process opens it: the on-demand handle (store/postgres/on-demand.ts) before the store.
const url = await testDatabase("contract");
let n = 0;
runStoreContract("postgres", async () => {
  const u = new URL(url);
  const store = openStore(withDatabase(url, u.pathname.slice(1), { schema: `c${n++}` }), { pollMs: 200 });
  await storeReady(store);
  return store;
});
