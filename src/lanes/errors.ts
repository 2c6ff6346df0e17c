/** Errors of the lanes (scale to zero); `LaneCrashedError` lives with the crash record it describes. */
import { SluiceError } from "../sdk/errors.js";

/** A lane worker could not load the code its server gave it: it exits before claiming (a startup crash). */
export class WorkerStartupError extends SluiceError<"WORKER_STARTUP_FAILED"> {
  constructor(readonly problems: string[]) {
    super(
      "WORKER_STARTUP_FAILED",
      `the worker cannot load its workflows:\n${problems.map((p) => `  ${p}`).join("\n")}\nfix the module and save it (sluice dev reloads) or restart the server`,
    );
  }
}
