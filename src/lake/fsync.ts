/** Flushing a file or folder to the disk, by path (a folder's fsync makes its new entries durable). */
import { closeSync, fsyncSync, openSync } from "node:fs";

/** fsyncs the file or folder at `path`. */
export function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
