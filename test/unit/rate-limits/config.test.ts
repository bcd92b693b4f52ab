import { describe, expect, it } from "vitest";
import { ConfigError, configFrom } from "../../../src/config";
import type { Env } from "../../../src/env";
import { scaledLimit } from "../../../src/rate-limits/table";
import { configOf } from "../support/config";

const rl = (vars: Record<string, string | undefined>) => configOf(vars).rateLimits;

describe("configuration", () => {
  it("defaults to the spec's limits, 60 requests/min per (IP, path) and a queue of 10", () => {
    expect(rl({})).toEqual({ enabled: true, multiplier: 1, ipLimit: 60, ipQueueSize: 10 });
    expect(configOf({})).toMatchObject({ accessTokenTtlSeconds: 3600, refreshTokenTtlSeconds: 14 * 24 * 3600 });
  });

  it("RATE_LIMIT_MULTIPLIER scales; 0 and off disable", () => {
    expect(rl({ RATE_LIMIT_MULTIPLIER: "0.5" })).toMatchObject({ enabled: true, multiplier: 0.5 });
    expect(rl({ RATE_LIMIT_MULTIPLIER: "1000" })).toMatchObject({ enabled: true, multiplier: 1000 });
    expect(rl({ RATE_LIMIT_MULTIPLIER: "off" })).toMatchObject({ enabled: false });
    expect(rl({ RATE_LIMIT_MULTIPLIER: "OFF" })).toMatchObject({ enabled: false });
    expect(rl({ RATE_LIMIT_MULTIPLIER: "0" })).toMatchObject({ enabled: false });
    expect(rl({ RATE_LIMIT_MULTIPLIER: "" })).toMatchObject({ enabled: true, multiplier: 1 });
  });

  it("IP limit and queue size are configurable; a queue of 0 is allowed", () => {
    expect(rl({ IP_RATE_LIMIT: "5", IP_QUEUE_SIZE: "0" })).toMatchObject({ ipLimit: 5, ipQueueSize: 0 });
  });

  it("a value that does not parse fails fast, naming the variable, instead of falling back to a default", () => {
    for (const [name, value] of [
      ["RATE_LIMIT_MULTIPLIER", "abc"],
      ["RATE_LIMIT_MULTIPLIER", "-2"],
      ["IP_RATE_LIMIT", "0"],
      ["IP_QUEUE_SIZE", "-1"],
      ["ACCESS_TOKEN_TTL_SECONDS", "1h"],
      ["REFRESH_TOKEN_TTL_SECONDS", "2.5"],
    ]) {
      expect(() => configOf({ [name as string]: value }), `${name}=${value}`).toThrow(ConfigError);
      expect(() => configOf({ [name as string]: value })).toThrow(name as string);
    }
    expect(() => configFrom({} as Env)).toThrow(/TOKEN_SIGNING_KEY/);
    expect(() => configOf({ TOKEN_SIGNING_KEY: "short" })).toThrow(/TOKEN_SIGNING_KEY/);
  });

  it("scaled limits round and never drop below 1", () => {
    expect(scaledLimit(15, 1)).toBe(15);
    expect(scaledLimit(15, 0.5)).toBe(8);
    expect(scaledLimit(10, 0.01)).toBe(1);
    expect(scaledLimit(140, 1000)).toBe(140_000);
  });
});
