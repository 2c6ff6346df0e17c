/** The runner of a non-TypeScript member script, by language. */
import type { AssetHost } from "../../../assets/host.js";
import type { MemberScript } from "../catalog.js";
import type { ScriptRunner } from "../definition.js";
import { sqlRunner } from "./sql.js";
import { type SubprocessSettings, subprocessRunner } from "./subprocess.js";

/** What runners need from the host. */
export interface RunnerHost {
  readonly root: string;
  assets(): Promise<AssetHost>;
  subprocessSettings(): Partial<SubprocessSettings>;
}

/** The runner of a Python, Bash or DuckDB SQL member (undefined for other languages). */
export function runnerFor(host: RunnerHost, member: MemberScript): ScriptRunner | undefined {
  switch (member.language) {
    case "sql":
      return sqlRunner(() => host.assets(), member);
    case "python":
    case "bash":
      return subprocessRunner(host, host.root, member, host.subprocessSettings());
    default:
      return undefined;
  }
}
