import type { TestProject } from "vitest/node";
import { findChromium, HOW_TO_GET_CHROMIUM, installChromium } from "../../scripts/lib/browser";
import { startLocalService } from "../../scripts/lib/local-service";
import type { PartnerCredentials } from "../../src/services/partners";

declare module "vitest" {
  interface ProvidedContext {
    /** the Worker under `wrangler dev` that every file of the `local` project talks to */
    localService: { base: string; credentials: PartnerCredentials };
  }
}

/**
 * Global setup of the `local` project: headless Chromium for the browser tests (found, installed
 * from Debian's packages when running as root on a fresh machine, else the run fails here saying how
 * to get it: never a silent skip), and one Worker under `wrangler dev` (private state, one partner)
 * shared by the project's files, which each provision what they need through the API.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!findChromium() && !installChromium()) throw new Error(HOW_TO_GET_CHROMIUM);
  const service = await startLocalService();
  project.provide("localService", { base: service.base, credentials: service.credentials });
  return () => service.stop();
}
