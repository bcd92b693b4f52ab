import type { LimitedBy, WindowState } from "../rate-limits/table";

/** The IETF draft informational headers, sent on every response of a limited endpoint. */
export function rateLimitHeaders(w: WindowState): Record<string, string> {
  return {
    "RateLimit-Limit": String(w.limit),
    "RateLimit-Remaining": String(Math.max(0, w.remaining)),
    "RateLimit-Reset": String(Math.max(0, Math.ceil(w.resetMs / 1000))),
  };
}

/** The headers of a 429: who limited, when to retry (whole seconds, rounded up), and the window state. */
export function tooManyHeaders(by: LimitedBy, retryAfterMs: number, w?: WindowState): Record<string, string> {
  return {
    ...(w ? rateLimitHeaders({ ...w, remaining: 0 }) : {}),
    "X-Service-Rate-Exceeded": by,
    "Retry-After": String(Math.max(1, Math.ceil(retryAfterMs / 1000))),
  };
}
