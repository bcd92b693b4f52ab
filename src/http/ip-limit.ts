import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError, serviceUnavailable } from "../errors";
import type { IpDecision } from "../objects/ip-gate";
import { RATE_WINDOW_MS, scaledLimit } from "../rate-limits/table";
import type { AppEnv } from "./app-env";
import { rateLimitHeaders, tooManyHeaders } from "./rate-limit-headers";

/** The IP the request comes from (Cloudflare sets CF-Connecting-IP; absent locally and in tests). */
export const clientIp = (c: Context<AppEnv>): string => c.req.header("CF-Connecting-IP")?.trim() || "unknown";

/**
 * Counts the request in the IpGate of its (client IP, URI path) and waits out any queueing delay
 * (the request is then answered late, with `X-Service-Rate-Delay: <ms>`: see `delayHeader`), or
 * throws 429 ip-limited when that pair's queue is full. Returns the decision (undefined when rate
 * limiting is off). Costs one Durable Object call; none when rate limiting is off.
 */
export async function throttleByIp(c: Context<AppEnv>): Promise<IpDecision | undefined> {
  const { rateLimits } = c.get("config");
  if (!rateLimits.enabled) return undefined;
  const path = new URL(c.req.url).pathname;
  const gate = c.env.IP_GATE.get(c.env.IP_GATE.idFromName(`${clientIp(c)} ${path}`));
  let decision: IpDecision;
  try {
    decision = await gate.take({
      now: Date.now(),
      limit: scaledLimit(rateLimits.ipLimit, rateLimits.multiplier),
      windowMs: RATE_WINDOW_MS,
      queueSize: rateLimits.ipQueueSize,
    });
  } catch (error) {
    // Fail closed: a request the limiter could not count is not served.
    throw serviceUnavailable("The rate limiter could not be reached; the request was not processed. Retry shortly.", error);
  }
  if (decision.action === "refuse") {
    throw new ApiError(429, "Too many requests.", undefined, tooManyHeaders("ip-limited", decision.retryAfterMs, decision));
  }
  if (decision.action === "delay") await scheduler.wait(decision.delayMs);
  return decision;
}

/** `X-Service-Rate-Delay` when the request was held back, else nothing. */
export const delayHeader = (d: IpDecision | undefined): Record<string, string> => (d?.action === "delay" ? { "X-Service-Rate-Delay": String(d.delayMs) } : {});

/** Middleware for unauthenticated endpoints (the token endpoint): IP-based limit with queueing. */
export function ipLimit() {
  return createMiddleware<AppEnv>(async (c, next) => {
    const decision = await throttleByIp(c);
    const headers = decision ? { ...rateLimitHeaders(decision), ...delayHeader(decision) } : {};
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  });
}
