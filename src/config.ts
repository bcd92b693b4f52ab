import { z } from "zod";
import type { Env } from "./env";
import { DEFAULT_TOKEN_GATE_SHARDS, MAX_TOKEN_GATE_SHARDS } from "./rate-limits/token-shards";

/**
 * The deployment's settings, parsed from the environment (wrangler.toml `[vars]`, `.dev.vars`,
 * secrets) by one zod schema. A value that does not parse is a configuration error: `configFrom`
 * throws with every problem named, so a bad deployment fails at once instead of running quietly on
 * defaults: `npm run deploy:check` parses wrangler.toml's vars (scripts/check-config.ts) and the
 * Worker parses its environment when it starts (src/index.ts), never first at request time. Fixed limits of the API contract are not
 * settings; they live in src/schemas/limits.ts.
 */
export interface Config {
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  rateLimits: RateLimitConfig;
  /**
   * TOKEN_GATE_SHARDS: how many Durable Objects one new access token's revocation check and windows
   * are spread over (docs/rate-limits.md "Shards"); written into the token, so a change applies to
   * tokens issued afterwards. 1 is one object per token.
   */
  tokenGateShards: number;
  /**
   * CORS_ALLOWED_ORIGINS: origins (scheme://host[:port]) whose browsers may call /v0 across origins.
   * Empty (the default): CORS is off, no Access-Control-* header is sent (docs/security.md "Controls").
   */
  corsAllowedOrigins: string[];
  /** OPERATOR_TOKEN: enables the operator diagnostics (docs/security.md) for this bearer secret; unset: they answer 404. */
  operatorToken?: string;
}

/** Rate limits (docs/rate-limits.md). The per-endpoint numbers are the spec's table in src/rate-limits/table.ts. */
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

/** An environment variable holding an integer (vars are strings; surrounding spaces are ignored). */
const integer = (min: number) =>
  z.string().trim().regex(/^\d+$/, { message: "must be a whole number" }).transform(Number).pipe(z.number().int().min(min).max(Number.MAX_SAFE_INTEGER));

const multiplier = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => v === "off" || (/^\d+(\.\d+)?$/.test(v) && Number.isFinite(Number(v))), { message: 'must be a number >= 0, or "off"' })
  .transform((v) => (v === "off" ? 0 : Number(v)));

/** A comma-separated list of web origins, each normalized to its serialization (lower case, no default port). */
const origins = z.string().transform((value, ctx) => {
  const list: string[] = [];
  for (const entry of value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    const bare =
      url && (url.protocol === "https:" || url.protocol === "http:") && url.pathname === "/" && !url.search && !url.hash && !url.username && !url.password;
    if (!url || !bare) {
      ctx.addIssue({ code: "custom", message: `'${entry}' is not an origin such as https://app.example.com ("*" is not accepted: list the origins)` });
      continue;
    }
    list.push(url.origin);
  }
  return list;
});

const EnvSettings = z.object({
  ACCESS_TOKEN_TTL_SECONDS: integer(1).default(3600),
  REFRESH_TOKEN_TTL_SECONDS: integer(1).default(14 * 24 * 3600),
  RATE_LIMIT_MULTIPLIER: multiplier.default(1),
  IP_RATE_LIMIT: integer(1).default(60),
  IP_QUEUE_SIZE: integer(0).default(10),
  TOKEN_GATE_SHARDS: integer(1)
    .pipe(z.number().max(MAX_TOKEN_GATE_SHARDS, { message: `must be at most ${MAX_TOKEN_GATE_SHARDS}` }))
    .default(DEFAULT_TOKEN_GATE_SHARDS),
  TOKEN_SIGNING_KEY: z.string().min(32, { message: "must be at least 32 characters (openssl rand -hex 32)" }),
  CORS_ALLOWED_ORIGINS: origins.default([]),
  OPERATOR_TOKEN: z.string().min(32, { message: "must be at least 32 characters (openssl rand -hex 32)" }).optional(),
});

export class ConfigError extends Error {
  override name = "ConfigError";
}

export function configFrom(env: Env): Config {
  // An empty string counts as unset (a `.dev.vars` line `NAME=`), so the default applies.
  const raw = Object.fromEntries(Object.keys(EnvSettings.shape).map((name) => [name, env[name as keyof Env] === "" ? undefined : env[name as keyof Env]]));
  const parsed = EnvSettings.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new ConfigError(`Invalid configuration: ${problems}`);
  }
  const s = parsed.data;
  return {
    accessTokenTtlSeconds: s.ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: s.REFRESH_TOKEN_TTL_SECONDS,
    rateLimits: {
      enabled: s.RATE_LIMIT_MULTIPLIER > 0,
      multiplier: s.RATE_LIMIT_MULTIPLIER,
      ipLimit: s.IP_RATE_LIMIT,
      ipQueueSize: s.IP_QUEUE_SIZE,
    },
    tokenGateShards: s.TOKEN_GATE_SHARDS,
    corsAllowedOrigins: s.CORS_ALLOWED_ORIGINS,
    ...(s.OPERATOR_TOKEN ? { operatorToken: s.OPERATOR_TOKEN } : {}),
  };
}
