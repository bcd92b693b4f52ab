import { describe, expect, it } from "vitest";
import { fnv1a, MAX_TOKEN_GATE_SHARDS, shardIndex, shardName } from "../../../src/rate-limits/token-shards";

describe("token gate shards", () => {
  it("FNV-1a of known inputs", () => {
    expect(fnv1a("")).toBe(0x811c9dc5);
    expect(fnv1a("a")).toBe(0xe40c292c);
    expect(fnv1a("foobar")).toBe(0xbf9cf968);
  });

  it("one shard: always 0, named by the token id alone (the gate of a token issued before sharding)", () => {
    expect(shardIndex("GET /v0/accounts/current", 1)).toBe(0);
    expect(shardName("jti-1", 0)).toBe("jti-1");
    expect(shardName("jti-1", 7)).toBe("jti-1/7");
  });

  it("a path always falls on the same shard, within range", () => {
    for (const shards of [2, 16, MAX_TOKEN_GATE_SHARDS]) {
      for (let i = 0; i < 200; i++) {
        const key = `POST /v0/registrations/${i}/graded-events`;
        const s = shardIndex(key, shards);
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThan(shards);
        expect(shardIndex(key, shards)).toBe(s);
      }
    }
  });

  it("64 registrations' paths spread over most of 16 shards, none holding more than a quarter", () => {
    const counts = new Array(16).fill(0);
    for (let i = 0; i < 64; i++) counts[shardIndex(`POST /v0/registrations/0c4f1a2e-5b7d-4e9a-8c3f-${i.toString(16).padStart(12, "0")}/graded-events`, 16)]++;
    expect(counts.filter((c) => c > 0).length).toBeGreaterThanOrEqual(10);
    expect(Math.max(...counts)).toBeLessThanOrEqual(16);
  });
});
