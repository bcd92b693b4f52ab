import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./app-env";

/**
 * Headers every response of the Worker carries (docs/security.md):
 * - `X-Content-Type-Options: nosniff`: a browser takes each body as the type we declare (the static
 *   assets get it from public/_headers);
 * - `Cache-Control: no-store` on everything under /v0 and /ops: tokens and every response with
 *   learner data stay out of shared and browser caches (the whole API, so no route can forget it).
 * Set after the route ran, so error responses (onError, 404) carry them too.
 */
export function securityHeaders() {
  return createMiddleware<AppEnv>(async (c, next) => {
    await next();
    c.res.headers.set("X-Content-Type-Options", "nosniff");
    if (/^\/(v0|ops)(\/|$)/.test(c.req.path)) c.res.headers.set("Cache-Control", "no-store");
  });
}

/**
 * The Content-Security-Policy of the Worker's HTML pages (the API reference at /docs; the dashboard,
 * a static asset, sets its own in public/_headers: docs/dashboard.md): scripts, styles, fonts and
 * fetches from this origin only (the Worker's static assets and its API), images from this origin
 * or inline data: URLs (Swagger UI's icons), no plugins, no framing, no form posts, no <base>.
 * No 'unsafe-inline', no 'unsafe-eval'.
 */
const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Middleware for a route serving an HTML page: the page CSP, no framing, no referrer to other sites. */
export function pageSecurity() {
  return createMiddleware<AppEnv>(async (c, next) => {
    await next();
    c.res.headers.set("Content-Security-Policy", PAGE_CSP);
    c.res.headers.set("X-Frame-Options", "DENY");
    c.res.headers.set("Referrer-Policy", "no-referrer");
  });
}
