import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { createApp } from "../../src/app";
import type { Env } from "../../src/env";
import { BASE } from "./raw-call";

const app = createApp();

/**
 * The Worker's app called directly with a modified environment: a binding replaced by a faulty or
 * intercepted stand-in, or a variable changed (e.g. rate limits off). Nothing in production knows
 * about it; the app sees an ordinary env object.
 */
export async function fetchWith(overrides: Partial<Env>, path: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`${BASE}${path}`, init), { ...env, ...overrides } as Env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}
