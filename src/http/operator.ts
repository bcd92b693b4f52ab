import { createMiddleware } from "hono/factory";
import { constantTimeEqual } from "../auth/secrets";
import { unauthorized } from "../errors";
import type { AppEnv } from "./app-env";
import { onNotFound } from "./errors";
import { BEARER, failedAuthentication } from "./protect";

/**
 * Guards the operator diagnostics (docs/security.md "Operator diagnostics"): off (a plain 404, as
 * for any unknown route) unless the deployment sets OPERATOR_TOKEN; then the request must carry it
 * as a bearer token (compared in constant time). A wrong token is a failed authentication: IP-limited
 * like the API's, then 401.
 */
export function operatorOnly() {
  return createMiddleware<AppEnv>(async (c, next) => {
    const expected = c.get("config").operatorToken;
    if (!expected) return onNotFound(c);
    const presented = BEARER.exec(c.req.header("Authorization") ?? "")?.[1] ?? "";
    if (!constantTimeEqual(presented, expected)) throw await failedAuthentication(c, unauthorized("The operator token is missing or wrong."));
    await next();
  });
}
