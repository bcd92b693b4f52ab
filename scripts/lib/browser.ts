// Headless Chromium for the browser tests and the dashboard screenshots: Debian's `chromium` (or any
// Chrome/Chromium named by CHROMIUM_PATH) driven by playwright-core, which downloads no browser of its own.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable"];

export const HOW_TO_GET_CHROMIUM =
  "Headless Chromium is needed for the dashboard's browser tests. Install Debian's package (as root: `apt-get update && apt-get install -y chromium`), " +
  "or set CHROMIUM_PATH to a Chrome or Chromium executable. `.ci/run` installs it on a fresh machine.";

/** The Chromium executable to use, or undefined. */
export function findChromium(): string | undefined {
  const given = process.env.CHROMIUM_PATH;
  if (given) return existsSync(given) ? given : undefined;
  return CANDIDATES.find((path) => existsSync(path));
}

/** Installs Debian's chromium when running as root on a Debian-like machine; true when it is there afterwards. */
export function installChromium(log: (line: string) => void = console.error): boolean {
  if (process.getuid?.() !== 0 || !existsSync("/usr/bin/apt-get")) return false;
  log("Installing Debian's chromium for the browser tests (apt-get install -y chromium)...");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  spawnSync("apt-get", ["update", "-qq"], { stdio: "ignore", env });
  const result = spawnSync("apt-get", ["install", "-y", "-qq", "chromium"], { stdio: "ignore", env });
  return result.status === 0 && findChromium() !== undefined;
}

/** The flags this closed-network machine needs (docs/dashboard.md). */
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

export interface Chromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Starts headless Chromium with a fresh profile directory (removed on close). Throws HOW_TO_GET_CHROMIUM when there is none. */
export async function launchChromium(): Promise<Chromium> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error(HOW_TO_GET_CHROMIUM);
  const profile = mkdtempSync(join(tmpdir(), "pathwise-chromium-"));
  const context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args: FLAGS, timeout: 60_000 });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
