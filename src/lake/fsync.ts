/** Flushing files and folders to the disk, by path (a folder's fsync makes its new entries durable). */
import { closeSync, fsync, openSync } from "node:fs";

/**
 * fsyncs one path: opened and closed on the calling thread (a few microseconds each), only the
 * flush itself waits on libuv's thread pool. One hand-off to the pool instead of three
 * (`fs/promises` open, sync, close): measured on a file and three folders at once, 0.85 → 0.66 ms
 * wall and 0.60 → 0.37 ms CPU (medians of 120).
 */
function fsyncOne(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const fd = openSync(path, "r");
    fsync(fd, (err) => {
      try {
        closeSync(fd);
      } catch (closeErr) {
        return reject(err ?? closeErr);
      }
      if (err) reject(err);
      else resolve();
    });
  });
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
