import { execFileSync } from "node:child_process";
import { tempDir } from "./tmp.js";

/**
 * A tmpfs of `size` (e.g. `"3m"`) mounted on a fresh folder, for tests of a small or full disk;
 * skips the test (`skip`, the test context's) where mounting is not allowed (it needs root: a
 * real small filesystem, not mocked). Unmount it with {@link unmountSmallDisk} in a `finally`.
 */
export function mountSmallDisk(size: string, skip: () => void, prefix = "sluice-small-"): string {
  const mnt = tempDir(prefix);
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", mnt], { stdio: "ignore" });
  } catch {
    skip();
  }
  return mnt;
}

/** Unmounts what {@link mountSmallDisk} mounted (lazily: a process may still hold a file on it). */
export function unmountSmallDisk(mnt: string): void {
  execFileSync("umount", ["-l", mnt], { stdio: "ignore" });
}
