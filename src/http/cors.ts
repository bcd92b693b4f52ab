import { cors } from "hono/cors";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./app-env";

/** Request headers a browser client of the API sends beyond the CORS-safelisted ones. */
const ALLOW_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "Request-Label"];
/** Response headers a browser client may read beyond the CORS-safelisted ones. */
const EXPOSE_HEADERS = [
  "X-Request-Id",
  "Request-Label",
  "Retry-After",
  "WWW-Authenticate",
  "X-Service-Rate-Exceeded",
  "X-Service-Rate-Delay",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
];

const handler = cors({
  // Only a listed origin is echoed; any other gets no Access-Control-Allow-Origin (the browser refuses).
  origin: (origin, c) => ((c.get("config") as AppEnv["Variables"]["config"]).corsAllowedOrigins.includes(origin) ? origin : null),
  allowMethods: ["GET", "POST", "PUT", "DELETE"],
  allowHeaders: ALLOW_HEADERS,
  exposeHeaders: EXPOSE_HEADERS,
  maxAge: 600,
  // Bearer tokens, not cookies: no credentialed requests.
  credentials: false,
});

/**
 * CORS for /v0 (docs/security.md "What a deployment must configure"): off unless the deployment lists allowed origins
 * (CORS_ALLOWED_ORIGINS); then Hono's cors middleware answers preflights (204) and adds the
 * Access-Control-* headers for the listed origins, per the Fetch standard.
 */
export function corsForListedOrigins() {
  return createMiddleware<AppEnv>((c, next) => (c.get("config").corsAllowedOrigins.length > 0 ? handler(c, next) : next()));
}
