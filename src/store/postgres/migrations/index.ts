import { sql as m0001 } from "./0001_init.js";
import { sql as m0002 } from "./0002_local_workflows.js";
import { sql as m0003 } from "./0003_claim_index.js";
import { sql as m0004 } from "./0004_workflow_params_and_removal.js";
import { sql as m0005 } from "./0005_sealed_secrets_and_signal_buffer.js";
import { sql as m0006 } from "./0006_releases.js";
import { sql as m0007 } from "./0007_schedule_owner.js";
import { sql as m0008 } from "./0008_ready_probe.js";
import { sql as m0009 } from "./0009_lease_ms.js";

/**
 * Numbered migrations, applied in order; `migrations` in the schema records each one applied.
 */
export const MIGRATIONS: readonly string[] = [m0001, m0002, m0003, m0004, m0005, m0006, m0007, m0008, m0009];
