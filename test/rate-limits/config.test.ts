import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { configFrom } from "../../src/config";
import { scaledLimit } from "../../src/rate-limits/table";

const rl = (vars: Record<string, string | undefined>) =>
  configFrom({ ...env, RATE_LIMIT_MULTIPLIER: undefined, IP_RATE_LIMIT: undefined, IP_QUEUE_SIZE: undefined, ...vars }).rateLimits;

describe("rate-limit configuration", () => {
  it("defaults to the spec's limits, 60 requests/min per (IP, path) and a queue of 10", () => {
    expect(rl({})).toEqual({ enabled: true, multiplier: 1, ipLimit: 60, ipQueueSize: 10 });
  });

  it("RATE_LIMIT_MULTIPLIER scales; 0 and off disable; garbage falls back to 1", () => {
    expect(rl({ RATE_LIMIT_MULTIPLIER: "0.5" })).toMatchObject({ enabled: true, multiplier: 0.5 });
    expect(rl({ RATE_LIMIT_MULTIPLIER: "1000" })).toMatchObject({ enabled: true, multiplier: 1000 });
    expect(rl({ RATE_LIMIT_MULTIPLIER: "off" })).toMatchObject({ enabled: false });
    expect(rl({ RATE_LIMIT_MULTIPLIER: "OFF" })).toMatchObject({ enabled: false });
    expect(rl({ RATE_LIMIT_MULTIPLIER: "0" })).toMatchObject({ enabled: false });
    expect(rl({ RATE_LIMIT_MULTIPLIER: "abc" })).toMatchObject({ enabled: true, multiplier: 1 });
    expect(rl({ RATE_LIMIT_MULTIPLIER: "-2" })).toMatchObject({ enabled: true, multiplier: 1 });
  });

  it("IP limit and queue size are configurable; a queue of 0 is allowed", () => {
    expect(rl({ IP_RATE_LIMIT: "5", IP_QUEUE_SIZE: "0" })).toMatchObject({ ipLimit: 5, ipQueueSize: 0 });
    expect(rl({ IP_RATE_LIMIT: "0", IP_QUEUE_SIZE: "-1" })).toMatchObject({ ipLimit: 60, ipQueueSize: 10 });
  });

  it("scaled limits round and never drop below 1", () => {
    expect(scaledLimit(15, 1)).toBe(15);
    expect(scaledLimit(15, 0.5)).toBe(8);
    expect(scaledLimit(10, 0.01)).toBe(1);
    expect(scaledLimit(140, 1000)).toBe(140_000);
  });
});
