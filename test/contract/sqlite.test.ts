import { join } from "node:path";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir } from "../helpers/tmp.js";
import { runStoreContract } from "./store.contract.js";

const dir = tempDir();
let n = 0;
runStoreContract("sqlite", async () => openSqliteStore({ path: join(dir, `contract-${n++}.db`) }));
