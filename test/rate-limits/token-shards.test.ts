import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { verifyAccessToken } from "../../src/auth/access-token";
import { configFrom } from "../../src/config";
import { admitRequest } from "../../src/http/admit";
import { type LimitCheck, type TokenGate, windowKey } from "../../src/objects/token-gate";
import { rateLimits, scaledLimit } from "../../src/rate-limits/table";
import { DEFAULT_TOKEN_GATE_SHARDS, shardIndex, shardName } from "../../src/rate-limits/token-shards";
import { newPartner } from "../support/api";
import { rawCall } from "../support/raw-call";
import { gateOf } from "../support/tokens";
import { api } from "../support/typed-api";

/**
 * One token's gate split into shards (docs/rate-limits.md "Shards"): every window still lives in
 * exactly one shard (the shard of its bucket), so the limits stay exact; a request counted in windows
 * of several shards is counted in all or none; a shard i > 0 enlists with shard 0 before its first
 * request; revocation and erasure reach every shard; idle shards hold nothing after the token's expiry.
 */

const HOUR = 3_600_000;
let n = 0;
const freshJti = () => `jti-${Date.now()}-${n++}`;
const stub = (jti: string, index: number) => env.TOKEN_GATE.get(env.TOKEN_GATE.idFromName(shardName(jti, index)));
const check = (bucket: string, now: number, limit = 15): LimitCheck => ({ kind: "token", bucket, limit, now, partnerId: "p1" });
const kvKeys = (state: DurableObjectState) => [...state.storage.kv.list()].map(([k]) => k).sort();
const rows = (state: DurableObjectState) => state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM rl_hits").one().n;
const rowsOf = async (state: DurableObjectState, bucket: string) =>
  state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM rl_hits WHERE bucket = ?", await windowKey(bucket)).one().n;
/** A batch-events window (an xAPI request's bucket) whose registration id puts it on the wanted shard. */
const batchWindowOn = (shard: number, shards = DEFAULT_TOKEN_GATE_SHARDS) => {
  for (;;) {
    const bucket = `POST /v0/registrations/${crypto.randomUUID()}/batch-events`;
    if (shardIndex(bucket, shards) === shard) return bucket;
  }
};

describe("a shard's window is exact", () => {
  it("15 allowed, the 16th refused, allowed again exactly when the oldest leaves the window (shard 5 of 16)", async () => {
    const jti = freshJti();
    const gate = stub(jti, 5);
    const t0 = Date.now();
    const exp = t0 + HOUR;
    for (let i = 0; i < 15; i++) {
      expect(await gate.admit(exp, check("b", t0 + i * 100), { jti, index: 5 }), `request ${i + 1}`).toEqual({
        ok: true,
        window: { limit: 15, remaining: 14 - i, resetMs: 60_000 - i * 100 },
      });
    }
    expect(await gate.admit(exp, check("b", t0 + 5_000), { jti, index: 5 })).toMatchObject({ ok: false, reason: "token-limited", retryAfterMs: 55_000 });
    expect(await gate.admit(exp, check("b", t0 + 59_999), { jti, index: 5 })).toMatchObject({ ok: false, retryAfterMs: 1 });
    expect(await gate.admit(exp, check("b", t0 + 60_000), { jti, index: 5 })).toMatchObject({ ok: true, window: { remaining: 0 } });
  });
});

describe("revocation reaches every shard before it returns", () => {
  it("a shard enlists with shard 0 on its first request; revoke on shard 0 flags it, and a shard never used refuses too", async () => {
    const jti = freshJti();
    const t0 = Date.now();
    const exp = t0 + HOUR;
    expect((await stub(jti, 3).admit(exp, check("b", t0), { jti, index: 3 })).ok).toBe(true);
    expect((await stub(jti, 9).admit(exp, undefined, { jti, index: 9 })).ok).toBe(true);
    await runInDurableObject(stub(jti, 0), (_: TokenGate, state) => {
      expect(kvKeys(state)).toEqual(["alarm_at", "cleanup_at", "jti", "shard:3", "shard:9"]);
    });
    await stub(jti, 0).revoke(exp);
    for (const i of [3, 9]) {
      await runInDurableObject(stub(jti, i), (_: TokenGate, state) => {
        expect(state.storage.kv.get("revoked"), `shard ${i}`).toBe(true);
      });
    }
    for (const i of [0, 3, 9, 12]) {
      expect(await stub(jti, i).admit(exp, check("b", t0 + 1), { jti, index: i }), `shard ${i}`).toEqual({ ok: false, reason: "revoked" });
    }
    // shard 12 was first used after the revocation: it asked shard 0 and recorded nothing but the flag
    await runInDurableObject(stub(jti, 12), (_: TokenGate, state) => {
      expect(rows(state)).toBe(0);
      expect(state.storage.kv.get("revoked")).toBe(true);
    });
  });

  it("requests racing the revocation: once revoke has returned, no shard admits the token", async () => {
    const jti = freshJti();
    const t0 = Date.now();
    const exp = t0 + HOUR;
    const shards = 16;
    for (let i = 1; i < 8; i++) await stub(jti, i).admit(exp, check("b", t0), { jti, index: i });
    let stop = false;
    const traffic = Array.from({ length: shards }, async (_, i) => {
      const seen: boolean[] = [];
      for (let k = 0; !stop && k < 200; k++) seen.push((await stub(jti, i).admit(exp, undefined, { jti, index: i })).ok);
      return seen;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await stub(jti, 0).revoke(exp);
    const after = await Promise.all(Array.from({ length: shards }, (_, i) => stub(jti, i).admit(exp, check("c", t0 + 1), { jti, index: i })));
    stop = true;
    // on every shard: admitted until the revocation reached it, refused from then on
    for (const seen of await Promise.all(traffic)) expect(seen.map((ok) => (ok ? "a" : "r")).join("")).toMatch(/^a*r*$/);
    expect(after).toEqual(Array.from({ length: shards }, () => ({ ok: false, reason: "revoked" })));
  });
});

describe("a request counted in windows of several shards (xAPI naming several registrations): all or none", () => {
  const XAPI = "POST /v0/xapi/statements";
  const tokenOf = (jti: string) => ({ jti, expiresAtMs: Date.now() + HOUR, shards: DEFAULT_TOKEN_GATE_SHARDS });

  it("counted in each shard when all have room; refused and counted in none when one window is full", async () => {
    const jti = freshJti();
    const [a, b] = [batchWindowOn(2), batchWindowOn(9)] as [string, string];
    const t0 = Date.now();
    const multi = (now: number): LimitCheck => ({ kind: "token", bucket: [a, b], limit: 3, now, partnerId: "p1" });
    expect(await admitRequest(env, tokenOf(jti), XAPI, multi(t0))).toEqual({ ok: true, window: { limit: 3, remaining: 2, resetMs: 60_000 } });
    // a's window fills with requests of its own
    for (const k of [1, 2]) expect((await admitRequest(env, tokenOf(jti), XAPI, { ...multi(t0 + k), bucket: a })).ok).toBe(true);
    expect(await admitRequest(env, tokenOf(jti), XAPI, multi(t0 + 10))).toEqual({
      ok: false,
      reason: "token-limited",
      retryAfterMs: 59_990,
      window: { limit: 3, remaining: 0, resetMs: 59_990 },
    });
    // shard 9 counted the refused request, then gave it back: b holds the first request only
    await runInDurableObject(stub(jti, 9), async (_: TokenGate, state) => expect(await rowsOf(state, b)).toBe(1));
    await runInDurableObject(stub(jti, 2), async (_: TokenGate, state) => expect(await rowsOf(state, a)).toBe(3));
    expect(await admitRequest(env, tokenOf(jti), XAPI, { ...multi(t0 + 20), bucket: b })).toMatchObject({ ok: true, window: { remaining: 1 } });
    expect(await admitRequest(env, tokenOf(jti), XAPI, { ...multi(t0 + 21), bucket: b })).toMatchObject({ ok: true, window: { remaining: 0 } });
  });

  it("windows on one shard are one call, counted together as before", async () => {
    const jti = freshJti();
    const [a, b] = [batchWindowOn(4), batchWindowOn(4)] as [string, string];
    const t0 = Date.now();
    const multi: LimitCheck = { kind: "token", bucket: [a, b], limit: 2, now: t0, partnerId: "p1" };
    expect(await admitRequest(env, tokenOf(jti), XAPI, multi)).toMatchObject({ ok: true, window: { remaining: 1 } });
    await runInDurableObject(stub(jti, 4), async (_: TokenGate, state) => {
      expect([await rowsOf(state, a), await rowsOf(state, b)]).toEqual([1, 1]);
    });
  });

  it("a revoked token is refused as revoked, and no shard keeps a count", async () => {
    const jti = freshJti();
    const [a, b] = [batchWindowOn(3), batchWindowOn(12)] as [string, string];
    const t0 = Date.now();
    expect((await admitRequest(env, tokenOf(jti), XAPI, { kind: "token", bucket: a, limit: 5, now: t0, partnerId: "p1" })).ok).toBe(true);
    await stub(jti, 0).revoke(t0 + HOUR);
    expect(await admitRequest(env, tokenOf(jti), XAPI, { kind: "token", bucket: [a, b], limit: 5, now: t0 + 1, partnerId: "p1" })).toEqual({
      ok: false,
      reason: "revoked",
    });
    await runInDurableObject(stub(jti, 12), async (_: TokenGate, state) => expect(rows(state)).toBe(0));
  });

  it("release takes back one count made at that instant, no other", async () => {
    const jti = freshJti();
    const gate = stub(jti, 0);
    const t0 = Date.now();
    for (const t of [t0, t0, t0 + 1]) await gate.admit(t0 + HOUR, check("b", t, 10));
    await gate.release(["b"], t0);
    await gate.release(["b"], t0 + 5);
    await runInDurableObject(gate, (_: TokenGate, state) => {
      expect(
        state.storage.sql
          .exec<{ t: number }>("SELECT t FROM rl_hits ORDER BY t")
          .toArray()
          .map((r) => r.t - t0),
      ).toEqual([0, 1]);
    });
  });
});

describe("erasure reaches every shard", () => {
  it("erase on shard 0 deletes the windows of every enlisted shard and revokes them; asked again, the same count", async () => {
    const jti = freshJti();
    const t0 = Date.now();
    const exp = t0 + HOUR;
    for (const [i, k] of [
      [0, 2],
      [5, 3],
      [11, 1],
    ] as const) {
      for (let j = 0; j < k; j++) await stub(jti, i).admit(exp, check(`b${j}`, t0 + j), { jti, index: i });
    }
    expect(await stub(jti, 0).erase(exp)).toBe(6);
    for (const i of [0, 5, 11]) {
      await runInDurableObject(stub(jti, i), (_: TokenGate, state) => {
        expect(rows(state), `shard ${i}`).toBe(0);
        expect(state.storage.kv.get("revoked"), `shard ${i}`).toBe(true);
      });
    }
    expect(await stub(jti, 0).erase(exp)).toBe(6);
    expect(await stub(jti, 7).admit(exp, check("b0", t0 + 9), { jti, index: 7 })).toEqual({ ok: false, reason: "revoked" });
  });
});

describe("idle shards hold nothing after the token's expiry", () => {
  it("a minute after its last request a shard holds no window rows; at expiry it and shard 0's list are empty", async () => {
    const jti = freshJti();
    const t0 = Date.now();
    const exp = t0 + HOUR;
    const shard = stub(jti, 4);
    // requests made more than a minute ago (the caller's clock): their window has passed
    for (let i = 0; i < 3; i++) await shard.admit(exp, check(`GET /v0/registrations/r${i}`, t0 - 90_000 + i * 1000), { jti, index: 4 });
    await runInDurableObject(shard, async (object: TokenGate, state) => {
      expect(rows(state)).toBe(3);
      if ((await state.storage.getAlarm()) !== exp) await object.alarm();
    });
    await runInDurableObject(shard, async (_: TokenGate, state) => {
      expect(rows(state)).toBe(0);
      expect(kvKeys(state)).toEqual(["alarm_at", "cleanup_at", "enlisted"]);
      expect(await state.storage.getAlarm()).toBe(exp);
    });
    for (const gate of [shard, stub(jti, 0)]) {
      expect(await runDurableObjectAlarm(gate)).toBe(true);
      await runInDurableObject(gate, async (_: TokenGate, state) => {
        expect(kvKeys(state)).toEqual([]);
        expect(rows(state)).toBe(0);
        expect(await state.storage.getAlarm()).toBeNull();
      });
    }
  });
});

describe("through the API: one token over the shards of its gate", () => {
  const { rateLimits: cfg } = configFrom(env);
  const limit = scaledLimit(rateLimits["GET /v0/accounts/{account_id}"]!.limit, cfg.multiplier);
  /** An account id (unknown: 404) whose GET /v0/accounts/{id} falls on the wanted shard. */
  const accountIdOn = (shard: number, shards: number) => {
    for (;;) {
      const id = crypto.randomUUID();
      if (shardIndex(`GET /v0/accounts/${id}`, shards) === shard) return id;
    }
  };

  it(`tokens are issued with ${DEFAULT_TOKEN_GATE_SHARDS} shards (TOKEN_GATE_SHARDS default)`, async () => {
    const p = await newPartner();
    const verified = await verifyAccessToken(p.adminToken, env.TOKEN_SIGNING_KEY, Math.floor(Date.now() / 1000));
    expect(verified.ok && verified.claims.gate_shards).toBe(DEFAULT_TOKEN_GATE_SHARDS);
  });

  it("each concrete path's window is exact in its own shard; paths on other shards and on the same shard are independent", async () => {
    const p = await newPartner();
    const shards = DEFAULT_TOKEN_GATE_SHARDS;
    const [a, b, sameShardAsA] = [accountIdOn(2, shards), accountIdOn(11, shards), accountIdOn(2, shards)].map((id) => `/v0/accounts/${id}`) as [
      string,
      string,
      string,
    ];
    for (const path of [a, b]) {
      for (let i = 1; i <= limit; i++) {
        const res = await rawCall("GET", path, { token: p.adminToken });
        expect(res.status, `${path} request ${i}`).toBe(404);
        expect(res.headers.get("RateLimit-Remaining")).toBe(String(limit - i));
      }
      expect((await rawCall("GET", path, { token: p.adminToken })).status).toBe(429);
      // another spelling of the same id: the same window, so the same shard
      expect(
        (await api("GET", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: path.slice("/v0/accounts/".length).toUpperCase() } })).status,
      ).toBe(429);
    }
    const other = await rawCall("GET", sameShardAsA, { token: p.adminToken });
    expect(other.status).toBe(404);
    expect(other.headers.get("RateLimit-Remaining")).toBe(String(limit - 1));
    // the rows are where protect sends the requests: shard 2 holds a's window, shard 11 b's
    for (const [path, shard] of [
      [a, 2],
      [b, 11],
    ] as const) {
      await runInDurableObject(await gateOf(p.adminToken, `GET ${path}`), async (_: TokenGate, state) => {
        expect(await rowsOf(state, `GET ${path}`), `shard ${shard}`).toBe(limit);
      });
    }
  });

  it("one token's requests to 64 registrations spread over the shards", async () => {
    const p = await newPartner();
    const paths = Array.from({ length: 64 }, (_, i) => `/v0/registrations/00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`);
    for (const path of paths) expect((await rawCall("GET", path, { token: p.adminToken })).status).toBe(404);
    const used = new Set(paths.map((path) => shardIndex(`GET ${path}`, DEFAULT_TOKEN_GATE_SHARDS)));
    expect(used.size).toBeGreaterThanOrEqual(12);
    for (const path of paths) {
      await runInDurableObject(await gateOf(p.adminToken, `GET ${path}`), async (_: TokenGate, state) => expect(await rowsOf(state, `GET ${path}`)).toBe(1));
    }
  });
});
