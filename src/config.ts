import type { Env } from "./env";

/** Every tunable of the service, typed, with its default. Tests override through bindings, never by editing. */
export interface Config {
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  maxBodyBytes: number;
  accountsBatchMax: number;
  listLimitDefault: number;
  listLimitMax: number;
}

export const defaults: Config = {
  accessTokenTtlSeconds: 3600,
  refreshTokenTtlSeconds: 14 * 24 * 3600,
  maxBodyBytes: 1024 * 1024,
  accountsBatchMax: 50,
  listLimitDefault: 100,
  listLimitMax: 500,
};

function positiveInt(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

export function configFrom(env: Env): Config {
  return {
    ...defaults,
    accessTokenTtlSeconds: positiveInt(env.ACCESS_TOKEN_TTL_SECONDS, defaults.accessTokenTtlSeconds),
    refreshTokenTtlSeconds: positiveInt(env.REFRESH_TOKEN_TTL_SECONDS, defaults.refreshTokenTtlSeconds),
  };
}
