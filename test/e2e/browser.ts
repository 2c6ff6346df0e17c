/**
 * Real headless Chromium for the UI tests: Debian's `/usr/bin/chromium` driven by
 * playwright-core (nothing is downloaded or installed at test time). Without the
 * browser the tests are skipped, unless `SLUICE_E2E=required` (CI) makes that a failure.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { REPO } from "../helpers/project.js";

/** Where the browser lives (override with SLUICE_CHROMIUM). */
const CHROMIUM = process.env.SLUICE_CHROMIUM ?? "/usr/bin/chromium";
/** Screenshots saved by the tests (gitignored). */
const ARTIFACTS = join(REPO, "test-artifacts", "e2e");

/** Why the browser tests cannot run here, or null when they can. */
export function skipReason(): string | null {
  if (!existsSync(CHROMIUM)) {
    const why = `no browser at ${CHROMIUM}: apt-get install -y chromium (or set SLUICE_CHROMIUM)`;
    if (process.env.SLUICE_E2E === "required") throw new Error(`SLUICE_E2E=required but ${why}`);
    return why;
  }
  if (!existsSync(join(REPO, "dist", "ui", "index.html"))) {
    throw new Error("dist/ui is missing: run `npm run build` (npm test does it) before the browser tests");
  }
  return null;
}

/** A launched browser with one page. */
export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Saves a screenshot as test-artifacts/e2e/<name>.png and returns its path. */
  shot(name: string, options?: { fullPage?: boolean }): Promise<string>;
  /** Errors the page threw or logged. */
  errors: string[];
  close(): Promise<void>;
}

/** Launches Chromium with a fresh profile. */
export async function launch(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "sluice-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1440, height: 1000 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error" && !/Failed to load resource/.test(m.text())) errors.push(m.text());
  });
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    context,
    page,
    errors,
    async shot(name, options = {}) {
      const path = join(ARTIFACTS, `${name}.png`);
      await page.screenshot({ path, fullPage: options.fullPage ?? true });
      return path;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
