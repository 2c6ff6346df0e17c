import { openPostgresStore } from "../../src/store/postgres/store.js";
import { testDatabase, withDatabase } from "../helpers/postgres.js";
import { runStoreContract } from "./store.contract.js";

// One database for this file, one schema per test: every test starts empty and migrates from scratch.
const url = await testDatabase("contract");
let n = 0;
runStoreContract("postgres", async () => {
  const u = new URL(url);
  const store = openPostgresStore(withDatabase(url, u.pathname.slice(1), { schema: `c${n++}` }), { pollMs: 200 });
  await store.ready();
  return store;
});
