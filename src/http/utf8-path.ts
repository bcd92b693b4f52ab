import { createMiddleware } from "hono/factory";
import { badRequest } from "../errors";
import type { AppEnv } from "./app-env";

/**
 * Path parameters must be percent-encoded UTF-8 (docs/security.md "Controls"): Hono leaves a
 * sequence it cannot decode (`gref-%FF`) in the value as written, where it passes the identifier
 * rule and answers 404. The raw segments are checked here instead, against the route's template
 * (`/v0/graphs/{graph_id}`), so the refusal names the parameter. A decoded value cannot tell
 * `%FF` from `%25FF`, hence the raw URL.
 */
export function utf8Path(template: string) {
  const params = template.split("/").map((segment) => /^\{(.+)\}$/.exec(segment)?.[1]);
  return createMiddleware<AppEnv>(async (c, next) => {
    // (the hot path: a URL without a percent sign decodes, and most have none)
    if (!c.req.url.includes("%")) return next();
    const segments = new URL(c.req.url).pathname.split("/");
    const details = params.flatMap((name, i) =>
      name !== undefined && !decodes(segments[i] ?? "") ? [{ path: `path.${name}`, message: "is not valid percent-encoded UTF-8" }] : [],
    );
    if (details.length) throw badRequest("The request is not valid; see details.", details);
    await next();
  });
}

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}
