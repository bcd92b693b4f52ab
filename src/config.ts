import type { Env } from "./env";

/** Every tunable of the service, typed, with its default. Tests override through bindings, never by editing. */
export interface Config {
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** live (unexpired) access tokens one account may hold; the token endpoint refuses more (docs/architecture.md "Tokens") */
  maxLiveAccessTokensPerAccount: number;
  maxBodyBytes: number;
  accountsBatchMax: number;
  listLimitDefault: number;
  listLimitMax: number;
  rateLimits: RateLimitConfig;
}

/** Rate limits (docs/rate-limits.md). The per-endpoint numbers are the spec's table in src/http/rate-limits.ts. */
export interface RateLimitConfig {
  /** false when RATE_LIMIT_MULTIPLIER is 0 or "off": no token, partner or IP limiting at all */
  enabled: boolean;
  /** RATE_LIMIT_MULTIPLIER: scales every limit (spec table and IP limit); default 1 */
  multiplier: number;
  /** IP_RATE_LIMIT: requests per minute per (client IP, URI path) before queueing; default 60 */
  ipLimit: number;
  /** IP_QUEUE_SIZE: requests per (client IP, URI path) that may wait beyond the limit; default 10 */
  ipQueueSize: number;
}

export const defaults: Config = {
  accessTokenTtlSeconds: 3600,
  refreshTokenTtlSeconds: 14 * 24 * 3600,
  maxLiveAccessTokensPerAccount: 100,
  maxBodyBytes: 1024 * 1024,
  accountsBatchMax: 50,
  listLimitDefault: 100,
  listLimitMax: 500,
  rateLimits: { enabled: true, multiplier: 1, ipLimit: 60, ipQueueSize: 10 },
};

function positiveInt(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

function nonNegativeInt(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && value.trim() !== "" && Number.isInteger(n) && n >= 0 ? n : fallback;
}

function rateLimitConfig(env: Env): RateLimitConfig {
  const d = defaults.rateLimits;
  const raw = env.RATE_LIMIT_MULTIPLIER?.trim().toLowerCase();
  const parsed = raw === undefined || raw === "" ? d.multiplier : raw === "off" ? 0 : Number(raw);
  const multiplier = Number.isFinite(parsed) && parsed >= 0 ? parsed : d.multiplier;
  return {
    enabled: multiplier > 0,
    multiplier,
    ipLimit: positiveInt(env.IP_RATE_LIMIT, d.ipLimit),
    ipQueueSize: nonNegativeInt(env.IP_QUEUE_SIZE, d.ipQueueSize),
  };
}

export function configFrom(env: Env): Config {
  return {
    ...defaults,
    accessTokenTtlSeconds: positiveInt(env.ACCESS_TOKEN_TTL_SECONDS, defaults.accessTokenTtlSeconds),
    refreshTokenTtlSeconds: positiveInt(env.REFRESH_TOKEN_TTL_SECONDS, defaults.refreshTokenTtlSeconds),
    rateLimits: rateLimitConfig(env),
  };
}
