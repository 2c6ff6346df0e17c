import { sql as m0001 } from "./0001_init.js";
import { sql as m0002 } from "./0002_tasks_and_approvals.js";
import { sql as m0003 } from "./0003_leaders.js";
import { sql as m0004 } from "./0004_local_workflows.js";
import { sql as m0005 } from "./0005_workflow_params_and_removal.js";
import { sql as m0006 } from "./0006_sealed_secrets_and_signal_buffer.js";
import { sql as m0007 } from "./0007_releases.js";
import { sql as m0008 } from "./0008_claim_index.js";
import { sql as m0009 } from "./0009_schedule_owner.js";
import { sql as m0010 } from "./0010_hot_indexes.js";
import { sql as m0011 } from "./0011_lease_ms.js";
import { sql as m0012 } from "./0012_leader_ttl.js";

/** Numbered migrations, applied in order; the database's `user_version` records the last applied. */
export const MIGRATIONS: readonly string[] = [
  m0001,
  m0002,
  m0003,
  m0004,
  m0005,
  m0006,
  m0007,
  m0008,
  m0009,
  m0010,
  m0011,
  m0012,
];
