/** The settings of a worker (`worker.ts`) and their defaults. */
import { hostname } from "node:os";

/** Options of a worker. */
export interface WorkerOptions {
  /** Runs executed at once. Default 500. */
  concurrency: number;
  /** Worker groups to claim from; undefined claims every group. */
  queues?: string[];
  /**
   * Server name for `local: true` workflows on a shared database: this worker also
   * claims its server's local queues (`group@server`) and never another server's.
   */
  server?: string;
  /** Lease length (ms). Default 30 000; heartbeats every third of it. */
  leaseMs: number;
  /** Longest idle wait before re-checking the store (ms), a safety net under notifications. Default 1 000. */
  pollMs: number;
  /** Identifies this worker in leases. */
  workerId: string;
}

/** Default worker options. */
export function defaultWorkerOptions(over: Partial<WorkerOptions> = {}): WorkerOptions {
  return {
    concurrency: 500,
    leaseMs: 30_000,
    pollMs: 1_000,
    workerId: `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`,
    ...over,
  };
}
