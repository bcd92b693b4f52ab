import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import { type RouteKey, routeKey } from "../http/caller-rules";
import { protect } from "../http/protect";
import { utf8Body } from "../http/utf8-body";
import { errorResponses } from "../schemas/common";

type Method = "get" | "post" | "put" | "delete";

/**
 * An authenticated API route: its path is under /v0, its caller rule is looked up in the
 * caller-rules table (a missing row fails at startup), and `protect` runs before validation, then
 * the UTF-8 check of the body (so an unauthenticated request is 401 whatever its body).
 */
export function apiRoute<const R extends Omit<RouteConfig, "method" | "middleware"> & { method: Method; path: string }>(config: R) {
  const key: RouteKey = routeKey(config.method, config.path);
  return createRoute({
    ...config,
    security: [{ Bearer: [] }],
    middleware: [protect(key), utf8Body()] as const,
    responses: { ...errorResponses, ...config.responses },
  });
}
