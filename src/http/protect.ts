import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { type TokenClaims, verifyAccessToken } from "../auth/access-token";
import { ApiError, serviceUnavailable, unauthorized } from "../errors";
import type { LimitCheck } from "../objects/token-gate";
import { type RateLimitRule, rateLimitFor, scaledLimit } from "../rate-limits/table";
import { MAX_BATCH_EVENTS } from "../schemas/limits";
import { admitRequest } from "./admit";
import type { AppEnv } from "./app-env";
import type { RouteKey } from "./caller-rules";
import { delayHeader, throttleByIp } from "./ip-limit";
import { rateLimitHeaders, tooManyHeaders } from "./rate-limit-headers";

export const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** An xAPI request names at most MAX_BATCH_EVENTS statements, so at most as many registration windows. */
const MAX_STATEMENT_WINDOWS = MAX_BATCH_EVENTS;

/**
 * The one gate in front of every API endpoint: bearer token -> caller (signature check, no storage
 * read), then one call to the shard of the token's TokenGate that holds the request's window
 * (src/http/admit.ts), which refuses revoked tokens and counts the request against the endpoint's
 * rate limit (src/rate-limits/table.ts; partner limits are forwarded by the TokenGate to the
 * PartnerGate). Validation and the caller rule follow in the
 * route (zod validators, then `authorize`), so a refused request (401, 429) is not processed at all.
 * A failed authentication is itself IP-limited (spec 8.1.1): the 401 is answered late or refused.
 */
export function protect(key: RouteKey) {
  const rule = rateLimitFor(key);
  const [method = "", pattern = ""] = key.split(" ");
  return createMiddleware<AppEnv>(async (c, next) => {
    const match = BEARER.exec(c.req.header("Authorization") ?? "");
    if (!match?.[1]) throw await failedAuthentication(c, unauthorized("Missing or malformed Authorization header; send 'Bearer <access token>'."));
    const verified = await verifyAccessToken(match[1], c.env.TOKEN_SIGNING_KEY, Math.floor(Date.now() / 1000));
    if (!verified.ok) {
      throw await failedAuthentication(c, unauthorized(verified.reason === "expired" ? "The access token has expired." : "The access token is not valid."));
    }
    const { claims } = verified;
    const { rateLimits } = c.get("config");
    const path = concretePath(c, method, pattern);
    const check = rule && rateLimits.enabled ? await limitCheck(c, rule, key, path, claims.partner_id, rateLimits.multiplier) : undefined;
    const admitted = await admit(c, claims, path, check);
    if (!admitted.ok) {
      if (admitted.reason === "revoked") throw await failedAuthentication(c, unauthorized("The access token has been revoked."));
      throw new ApiError(429, "Too many requests.", undefined, tooManyHeaders(admitted.reason, admitted.retryAfterMs, admitted.window));
    }
    c.set("caller", {
      partnerId: claims.partner_id,
      accountId: claims.account_id,
      isAdmin: claims.admin,
      tokenId: claims.jti,
      expiresAt: claims.exp,
    });
    c.set("routeKey", key);
    await next();
    if (admitted.window) for (const [name, value] of Object.entries(rateLimitHeaders(admitted.window))) c.res.headers.set(name, value);
  });
}

/**
 * The token's gate decides (revocation, rate limits). If it cannot be reached the request is
 * refused with 503 and Retry-After: it fails closed, never admitting a token it could not check.
 */
async function admit(c: Context<AppEnv>, claims: TokenClaims, path: string, check: LimitCheck | undefined) {
  try {
    return await admitRequest(c.env, { jti: claims.jti, expiresAtMs: claims.exp * 1000, shards: claims.gate_shards ?? 1 }, path, check);
  } catch (error) {
    throw serviceUnavailable("The access token could not be checked right now; the request was not processed. Retry shortly.", error);
  }
}

/** The 401 of a failed authentication, after the IP-based limit had its say (delay, or 429 ip-limited). */
export async function failedAuthentication(c: Context<AppEnv>, error: ApiError): Promise<ApiError> {
  const decision = await throttleByIp(c);
  return new ApiError(error.status, error.message, error.details, { ...error.headers, ...delayHeader(decision) });
}

/**
 * "METHOD /concrete/path": path parameters decoded and lower-cased, so that spellings of one
 * resource share a window (and a shard of the token's gate).
 */
function concretePath(c: Context<AppEnv>, method: string, pattern: string): string {
  return `${method} ${pattern.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent((c.req.param(name) ?? "").toLowerCase()))}`;
}

/** What to count: token limits per (method, concrete path), partner limits per endpoint. */
async function limitCheck(c: Context<AppEnv>, rule: RateLimitRule, key: string, path: string, partnerId: string, multiplier: number): Promise<LimitCheck> {
  let limit = rule.limit;
  let bucket: string | string[];
  if (rule.countsIn) {
    bucket = await statementWindows(c, rule.countsIn, key);
  } else if (rule.kind === "partner") {
    bucket = key;
  } else {
    bucket = path;
    if (rule.actions) {
      const action = await bodyAction(c);
      if (action !== undefined && Object.hasOwn(rule.actions, action)) {
        limit = rule.actions[action] ?? limit;
        bucket += ` action=${action}`;
      } else {
        bucket += " action=*";
      }
    }
  }
  return { kind: rule.kind, bucket, limit: scaledLimit(limit, multiplier), now: Date.now(), partnerId };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The windows an xAPI statements request counts in (docs/xapi.md): `countsIn`'s window of each
 * registration named by a statement's `context.registration`, read from a clone of the body; the
 * route's own window when the body names none (it will be a 400).
 */
async function statementWindows(c: Context<AppEnv>, countsIn: string, key: string): Promise<string[]> {
  let body: unknown;
  try {
    body = await c.req.raw.clone().json();
  } catch {
    return [key];
  }
  const ids = new Set<string>();
  for (const statement of Array.isArray(body) ? body : [body]) {
    const id = (statement as { context?: { registration?: unknown } } | null)?.context?.registration;
    if (typeof id === "string" && UUID.test(id.toLowerCase())) ids.add(id.toLowerCase());
    if (ids.size >= MAX_STATEMENT_WINDOWS) break;
  }
  return ids.size ? [...ids].map((id) => countsIn.replace("{id}", id)) : [key];
}

/** The `action` field of a JSON body (batch goal assignment), read from a clone; undefined if absent or malformed. */
async function bodyAction(c: Context<AppEnv>): Promise<string | undefined> {
  try {
    const body: unknown = await c.req.raw.clone().json();
    const action = (body as { action?: unknown } | null)?.action;
    return typeof action === "string" ? action : undefined;
  } catch {
    return undefined;
  }
}
