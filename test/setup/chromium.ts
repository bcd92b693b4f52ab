import { findChromium, HOW_TO_GET_CHROMIUM, installChromium } from "../../scripts/lib/browser";

/**
 * Global setup of the `local` project: the dashboard's browser tests need headless Chromium. Found
 * (CHROMIUM_PATH, /usr/bin/chromium, ...), else installed from Debian's packages when running as root
 * (a fresh CI machine), else the run fails here with how to get it: never a silent skip.
 */
export default function setup(): void {
  if (findChromium() || installChromium()) return;
  throw new Error(HOW_TO_GET_CHROMIUM);
}
