/**
 * What every package entry point (`sluice`, `sluice/tako`) does on import: lets
 * `.enqueue()` and `signal()` outside an engine reach the database the environment
 * names (`engine/connect.ts`). The SDK itself never opens a store.
 */
import { environmentConnector } from "./engine/connect.js";
import { setRuntimeConnector } from "./sdk/runtime.js";

/** Installs the environment connector for this process. */
export function installEnvironmentConnector(): void {
  setRuntimeConnector(environmentConnector());
}
