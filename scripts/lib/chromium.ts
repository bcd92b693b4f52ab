// Finds Debian's Chromium for the browser tests, installing it with apt-get when it is missing
// (the machines run as root; `apt-get install chromium`). Throws, loudly, when it can do neither:
// the browser tests never skip.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

export function ensureChromium(): string {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) {
    if (!existsSync(configured)) throw new Error(`CHROMIUM_PATH=${configured} does not exist`);
    return configured;
  }
  const found = CANDIDATES.find((p) => existsSync(p));
  if (found) return found;
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env, timeout: 300_000 });
    execFileSync("apt-get", ["install", "-y", "-qq", "chromium"], { stdio: "inherit", env, timeout: 600_000 });
  } catch (error) {
    throw new Error(`Chromium is not installed and 'apt-get install chromium' failed (${String(error)}); install it or set CHROMIUM_PATH`);
  }
  const installed = CANDIDATES.find((p) => existsSync(p));
  if (!installed) throw new Error("apt-get install chromium finished but no chromium binary was found");
  return installed;
}
