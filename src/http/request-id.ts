import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./app-env";

/**
 * Every response carries `X-Request-Id`, always generated here (docs/security.md "Controls"): a
 * client's value is never adopted, so the id in our logs is ours. A client's own correlation
 * value goes in `Request-Label`, which is echoed.
 */
export function requestId() {
  return createMiddleware<AppEnv>(async (c, next) => {
    const id = crypto.randomUUID();
    c.set("requestId", id);
    const label = c.req.header("Request-Label");
    await next();
    c.res.headers.set("X-Request-Id", id);
    if (label) c.res.headers.set("Request-Label", label);
  });
}
