/**
 * The rate limits of spec section 8.2, one row per endpoint, keyed like the caller-rules table
 * ("METHOD /v0/path/{param}"). `protect(routeKey)` looks its row up with `rateLimitFor`, so a route
 * that lands later is limited as soon as it exists. Lookup ignores path-parameter *names*
 * ("{id}" and "{reg_id}" are the same slot), so a route only has to match the shape of its row.
 *
 * kind "token":   per access token and per (method, concrete path) (docs/rate-limits.md).
 * kind "partner": across all tokens of the partner, per endpoint.
 * `actions`:      the batch goal assignment counts `assign` and `unassign` requests in separate
 *                 windows (docs/rate-limits.md); `limit` applies when the action is
 *                 missing or unknown (the stricter one).
 * Every window is RATE_WINDOW_MS long. An endpoint with no token or partner limit has a `notLimited`
 * row saying why; a route in none of the tables fails at startup (`rateLimitFor` throws).
 * Numbers here are the spec's; deployments scale them with RATE_LIMIT_MULTIPLIER (src/config.ts).
 */
export const RATE_WINDOW_MS = 60_000;

/** Who refused a request (spec section 7: the `X-Service-Rate-Exceeded` values); the client reads the same type. */
export type LimitedBy = "token-limited" | "partner-limited" | "ip-limited";

export type LimitKind = "token" | "partner";

export interface RateLimitRule {
  kind: LimitKind;
  /** requests per RATE_WINDOW_MS */
  limit: number;
  /** per-action limits read from the JSON body's `action` field, each in its own window */
  actions?: Readonly<Record<string, number>>;
  /**
   * The request counts in this route's window (a key with `{id}`) of each registration its xAPI
   * statements name (`context.registration`), all or none; in its own window when it names none.
   */
  countsIn?: string;
}

const token = (limit: number): RateLimitRule => ({ kind: "token", limit });
const partner = (limit: number): RateLimitRule => ({ kind: "partner", limit });

const LI = "/v0/learning-instances";
const REG = "/v0/registrations";
const ASSIGNMENT = `${LI}/{id}/scoped-goals/{goal_id}/registrations`;
/** The metrics with row tables, as src/schemas/metrics.ts lists them (this table imports nothing; test/unit/rate-limits/table.test.ts checks they agree). */
const METRICS = ["expected-score", "readiness-forecast", "active-time", "proficiency"] as const;

export const rateLimits: Readonly<Record<string, RateLimitRule>> = {
  "POST /v0/accounts": token(750),
  "POST /v0/batch": token(90),
  "GET /v0/accounts/current": token(15),
  "GET /v0/accounts/{account_id}": token(15),
  "DELETE /v0/accounts/{account_id}": token(150),
  "POST /v0/registrations": token(375),
  "GET /v0/registrations/{reg_id}": token(15),
  "DELETE /v0/registrations/{reg_id}": token(375),
  "POST /v0/learning-instances": token(750),
  "GET /v0/learning-instances": token(15),
  "GET /v0/learning-instances/{id}": token(15),
  "GET /v0/learning-instances/{li_id}/registrations": token(15),
  [`POST ${LI}/{id}/scoped-goals`]: token(90),
  [`PUT ${LI}/{id}/scoped-goals/{goal_id}`]: token(90),
  [`PUT ${ASSIGNMENT}/{registration_id}`]: token(135),
  [`PUT ${ASSIGNMENT}`]: { kind: "token", limit: 10, actions: { assign: 10, unassign: 100 } },
  [`GET ${ASSIGNMENT}/{registration_id}`]: token(15),
  [`DELETE ${ASSIGNMENT}/{registration_id}`]: token(135),
  [`POST ${REG}/{id}/ungraded-events`]: token(15),
  [`POST ${REG}/{id}/graded-events`]: token(15),
  [`POST ${REG}/{id}/focus-events`]: token(15),
  [`POST ${REG}/{id}/recommendation-followed-events`]: token(15),
  [`POST ${REG}/{id}/batch-events`]: token(15),
  [`GET ${REG}/{id}/recommendation`]: token(15),
  ...Object.fromEntries(
    METRICS.flatMap((m) => [
      [`POST ${LI}/{id}/metrics/${m}/rows`, token(225)],
      [`POST ${REG}/{id}/metrics/${m}/rows`, token(225)],
    ]),
  ),
  "POST /v0/accounts/metrics/predicted-score": partner(140),
  [`POST ${LI}/{id}/metrics/status-and-progress`]: token(225),
  [`POST ${REG}/{id}/metrics/status-and-progress`]: token(225),
  [`POST ${LI}/{id}/metrics/groups`]: token(25),
};

/**
 * Endpoints that spec 8.2 does not list, limited through its rows: an xAPI statements request counts
 * once in the batch-events window of each registration its statements name (docs/xapi.md), so a
 * partner that moves from event posts to xAPI gets neither more nor less quota per registration.
 */
const BATCH_EVENTS = `POST ${REG}/{id}/batch-events`;
const viaBatchEvents: RateLimitRule = { kind: "token", limit: rateLimits[BATCH_EVENTS]?.limit ?? 15, countsIn: BATCH_EVENTS };
export const statementLimits: Readonly<Record<string, RateLimitRule>> = {
  "POST /v0/xapi/statements": viaBatchEvents,
  "PUT /v0/xapi/statements": viaBatchEvents,
};

/**
 * Endpoints spec 8.2 does not list: the student data lifecycle (docs/privacy.md), each
 * with the reason for its number (docs/rate-limits.md "Beyond the spec").
 */
export const lifecycleLimits: Readonly<Record<string, RateLimitRule & { reason: string }>> = {
  "POST /v0/accounts/{account_id}/erasure": { ...token(150), reason: "as DELETE /accounts/{id} (150/min/token): it removes an account" },
  [`POST ${LI}/{id}/erasure`]: { ...token(15), reason: "a whole class at once: the spec's smallest per-path limit" },
  "GET /v0/erasures/{erasure_id}": { ...token(60), reason: "polling a receipt about once a second (pw.eraseAccount waits on it)" },
  "GET /v0/accounts/{account_id}/export": {
    ...partner(60),
    reason:
      "streams a whole history (100,000 events is about 30 MB): at most 60 exports a minute across the partner's tokens, as predicted score is limited per partner",
  },
  "GET /v0/data-requests": { ...token(15), reason: "as the spec's other listings (GET /learning-instances: 15/min/token)" },
  "GET /v0/partner/settings": { ...token(15), reason: "as GET /accounts/current: a configuration read" },
  "PUT /v0/partner/settings": { ...token(15), reason: "a configuration write, rare" },
};

/**
 * Endpoints with no token or partner limit (spec 8.2 does not list them), each with the reason. They
 * still pass the TokenGate for revocation (docs/rate-limits.md).
 */
const notLimited: Readonly<Record<string, { reason: string }>> = {
  "PUT /v0/learning-instances/{id}": { reason: "an instance's settings: an admin or instructor write, rare" },
  "DELETE /v0/learning-instances/{id}": { reason: "the partner admin closing an instance, rare" },
  "POST /v0/graphs": { reason: "course content: the partner admin with the graph entitlement, rare" },
  "POST /v0/graphs/validate": { reason: "a dry run of POST /v0/graphs: the partner admin with the graph entitlement" },
  "PUT /v0/graphs/{graph_id}": { reason: "a new version of course content: the partner admin with the graph entitlement, rare" },
  "GET /v0/graphs/{graph_id}": { reason: "course content, not personal data: a read" },
  "GET /v0/graphs": { reason: "course content, not personal data: a listing" },
  [`GET ${LI}/{id}/scoped-goals`]: { reason: "an instance's goals: an admin or instructor read" },
  [`GET ${LI}/{id}/scoped-goals/{goal_id}`]: { reason: "one goal: an admin or instructor read" },
  [`DELETE ${LI}/{id}/scoped-goals/{goal_id}`]: { reason: "an admin or instructor removing a goal, rare" },
};

/** "PUT /v0/x/{goal_id}/y/{reg}" -> "PUT /v0/x/{}/y/{}": the key with parameter names erased. */
export const routeShape = (key: string): string => key.replace(/\{[^}]*\}/g, "{}");

const byShape = new Map(
  [...Object.entries(rateLimits), ...Object.entries(statementLimits), ...Object.entries(lifecycleLimits)].map(([key, rule]) => [routeShape(key), rule]),
);

const notLimitedShapes = new Set(Object.keys(notLimited).map(routeShape));

/**
 * The limit row of a route key ("METHOD /v0/path/{param}"), or undefined when its row is in
 * `notLimited`. A route in no table throws: `protect` and `apiRoute` call this when the routes are
 * defined, so such a route fails at startup, as one with no caller rule does.
 */
export function rateLimitFor(routeKey: string): RateLimitRule | undefined {
  const shape = routeShape(routeKey);
  const rule = byShape.get(shape);
  if (!rule && !notLimitedShapes.has(shape)) {
    throw new Error(`No rate-limit row for ${routeKey}: add it to rateLimits, or to notLimited with the reason (src/rate-limits/table.ts).`);
  }
  return rule;
}

/** A spec limit scaled by the configured multiplier (never below 1); callers skip limiting when off. */
export function scaledLimit(limit: number, multiplier: number): number {
  return Math.max(1, Math.round(limit * multiplier));
}

/** What a limiter reports back for one request. */
export interface WindowState {
  limit: number;
  /** requests left in the window after this one */
  remaining: number;
  /** ms until the oldest counted request leaves the window (one more request becomes available) */
  resetMs: number;
}
