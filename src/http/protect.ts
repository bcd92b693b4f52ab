import { createMiddleware } from "hono/factory";
import { verifyAccessToken } from "../auth/access-token";
import type { AppEnv } from "./app-env";
import { type RouteKey } from "./caller-rules";
import { unauthorized } from "./errors";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * The one gate in front of every API endpoint: bearer token -> caller (signature check, no storage
 * read), then a single call to the token's TokenGate object (revocation, rate limits). Validation
 * and the caller rule follow in the route (zod validators, then `authorize`).
 */
export function protect(key: RouteKey) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const match = BEARER.exec(c.req.header("Authorization") ?? "");
    if (!match?.[1]) throw unauthorized("Missing or malformed Authorization header; send 'Bearer <access token>'.");
    const verified = await verifyAccessToken(match[1], c.env.TOKEN_SIGNING_KEY, Math.floor(Date.now() / 1000));
    if (!verified.ok) {
      throw unauthorized(verified.reason === "expired" ? "The access token has expired." : "The access token is not valid.");
    }
    const { claims } = verified;
    const gate = c.env.TOKEN_GATE.get(c.env.TOKEN_GATE.idFromName(claims.jti));
    const admitted = await gate.admit(claims.exp * 1000);
    if (!admitted.ok) throw unauthorized("The access token has been revoked.");
    c.set("caller", {
      partnerId: claims.partner_id,
      accountId: claims.account_id,
      isAdmin: claims.admin,
      tokenId: claims.jti,
      expiresAt: claims.exp,
    });
    c.set("routeKey", key);
    await next();
  });
}
