import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { LimitCheck, TokenGate } from "../../src/objects/token-gate";

/** Durable Object level: explicit clocks, explicit limits. Each test uses fresh object names. */

const HOUR = 3_600_000;
let n = 0;
const fresh = (prefix: string) => `${prefix}-${Date.now()}-${n++}`;
const tokenGate = (name = fresh("token")) => env.TOKEN_GATE.get(env.TOKEN_GATE.idFromName(name));
const ipGate = (name = fresh("ip")) => env.IP_GATE.get(env.IP_GATE.idFromName(name));

function check(bucket: string, now: number, limit = 15, kind: LimitCheck["kind"] = "token", partnerId = "p1"): LimitCheck {
  return { kind, bucket, limit, now, partnerId };
}

describe("TokenGate: exact sliding window per (token, method, concrete path)", () => {
  it("15 allowed, the 16th refused, allowed again exactly when the oldest leaves the window", async () => {
    const gate = tokenGate();
    const t0 = Date.now();
    const exp = t0 + HOUR;
    const bucket = "GET /v0/accounts/current";
    for (let i = 0; i < 15; i++) {
      const r = await gate.admit(exp, check(bucket, t0 + i * 100));
      expect(r, `request ${i + 1}`).toEqual({ ok: true, window: { limit: 15, remaining: 14 - i, resetMs: 60_000 - i * 100 } });
    }
    expect(await gate.admit(exp, check(bucket, t0 + 5_000))).toEqual({
      ok: false,
      reason: "token-limited",
      retryAfterMs: 55_000,
      window: { limit: 15, remaining: 0, resetMs: 55_000 },
    });
    expect(await gate.admit(exp, check(bucket, t0 + 59_999))).toMatchObject({ ok: false, reason: "token-limited", retryAfterMs: 1 });
    // t0 + 60000: the first request (t0) has left the window (t0+60000-60000, t0+60000]
    expect(await gate.admit(exp, check(bucket, t0 + 60_000))).toMatchObject({ ok: true, window: { remaining: 0 } });
    // the window is full again until the second request (t0 + 100) leaves
    expect(await gate.admit(exp, check(bucket, t0 + 60_099))).toMatchObject({ ok: false, retryAfterMs: 1 });
    expect(await gate.admit(exp, check(bucket, t0 + 60_100))).toMatchObject({ ok: true });
  });

  it("refused requests are not counted: waiting out the window always works", async () => {
    const gate = tokenGate();
    const t0 = Date.now();
    for (let i = 0; i < 3; i++) expect((await gate.admit(t0 + HOUR, check("b", t0, 3))).ok).toBe(true);
    for (let i = 1; i <= 50; i++) expect((await gate.admit(t0 + HOUR, check("b", t0 + i * 1000, 3))).ok).toBe(false);
    expect(await gate.admit(t0 + HOUR, check("b", t0 + 60_000, 3))).toMatchObject({ ok: true, window: { remaining: 2 } });
  });

  it("exhausting one endpoint does not block another", async () => {
    const gate = tokenGate();
    const t0 = Date.now();
    for (let i = 0; i < 15; i++) await gate.admit(t0 + HOUR, check("GET /v0/accounts/current", t0));
    expect((await gate.admit(t0 + HOUR, check("GET /v0/accounts/current", t0))).ok).toBe(false);
    expect(await gate.admit(t0 + HOUR, check("GET /v0/learning-instances", t0))).toMatchObject({ ok: true, window: { remaining: 14 } });
    expect(await gate.admit(t0 + HOUR, check("POST /v0/accounts", t0, 750))).toMatchObject({ ok: true, window: { remaining: 749 } });
  });

  it("each concrete path has its own window (15 graded events per minute per registration)", async () => {
    const gate = tokenGate();
    const t0 = Date.now();
    const a = "POST /v0/registrations/aaaa/graded-events";
    const b = "POST /v0/registrations/bbbb/graded-events";
    for (let i = 0; i < 15; i++) await gate.admit(t0 + HOUR, check(a, t0));
    expect((await gate.admit(t0 + HOUR, check(a, t0 + 1))).ok).toBe(false);
    expect(await gate.admit(t0 + HOUR, check(b, t0 + 1))).toMatchObject({ ok: true, window: { remaining: 14 } });
  });

  it("each token has its own windows", async () => {
    const one = tokenGate();
    const two = tokenGate();
    const t0 = Date.now();
    for (let i = 0; i < 15; i++) await one.admit(t0 + HOUR, check("GET /v0/accounts/current", t0));
    expect((await one.admit(t0 + HOUR, check("GET /v0/accounts/current", t0))).ok).toBe(false);
    expect(await two.admit(t0 + HOUR, check("GET /v0/accounts/current", t0))).toMatchObject({ ok: true, window: { remaining: 14 } });
  });

  it("a revoked token is refused before any counting", async () => {
    const gate = tokenGate();
    const t0 = Date.now();
    await gate.revoke(t0 + HOUR);
    expect(await gate.admit(t0 + HOUR, check("b", t0))).toEqual({ ok: false, reason: "revoked" });
    await runInDurableObject(gate, (_: TokenGate, state) => {
      expect(state.storage.sql.exec("SELECT COUNT(*) AS n FROM rl_hits").one().n).toBe(0);
    });
  });

  it("state is bounded: only the last window's admitted requests are stored", async () => {
    const gate = tokenGate();
    const t0 = Date.now();
    for (let i = 0; i < 100; i++) await gate.admit(t0 + HOUR, check(`GET /v0/registrations/r${i % 10}`, t0 + i * 1000, 5));
    await runInDurableObject(gate, (_: TokenGate, state) => {
      // requests at t0+40s .. t0+99s are inside the window at t0+99s; 6 per path, of which 5 admitted
      const rows = state.storage.sql.exec<{ bucket: string; n: number }>("SELECT bucket, COUNT(*) AS n FROM rl_hits GROUP BY bucket").toArray();
      expect(rows).toHaveLength(10);
      for (const row of rows) expect(row.n).toBeLessThanOrEqual(5);
      expect(state.storage.sql.exec("SELECT MIN(t) AS t FROM rl_hits").one().t).toBeGreaterThan(t0 + 99_000 - 60_000);
    });
  });

  it("the expiry alarm deletes everything", async () => {
    const gate = tokenGate();
    const t0 = Date.now();
    // a token expiring within the window: the one alarm is the expiry
    await gate.admit(t0 + 30_000, check("b", t0));
    await runInDurableObject(gate, async (_: TokenGate, state) => {
      expect(await state.storage.getAlarm()).toBe(t0 + 30_000);
    });
    expect(await runDurableObjectAlarm(gate)).toBe(true);
    await runInDurableObject(gate, async (_: TokenGate, state) => {
      expect(state.storage.kv.get("cleanup_at")).toBeUndefined();
      expect(state.storage.sql.exec("SELECT COUNT(*) AS n FROM rl_hits").one().n).toBe(0);
      expect(await state.storage.getAlarm()).toBeNull();
    });
    // the object still works afterwards (the table is recreated)
    expect((await gate.admit(t0 + HOUR, check("b", t0))).ok).toBe(true);
  });

  it("a revoked token's gate deletes everything, the flag too, at expiry", async () => {
    const gate = tokenGate();
    const t0 = Date.now();
    await gate.revoke(t0 + HOUR);
    expect(await runDurableObjectAlarm(gate)).toBe(true);
    await runInDurableObject(gate, (_: TokenGate, state) => {
      expect([...state.storage.kv.list()]).toEqual([]);
    });
  });
});

describe("TokenGate: idle gates hold nothing but the revocation flag", () => {
  const rows = (state: DurableObjectState) => state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM rl_hits").one().n;
  const kvKeys = (state: DurableObjectState) => [...state.storage.kv.list()].map(([k]) => k).sort();
  /**
   * Runs the window alarm, which is due already, unless it has fired on its own. Then the pending
   * alarm is the expiry, which runDurableObjectAlarm would run early, so it is left alone.
   */
  const runWindowAlarm = (gate: DurableObjectStub<TokenGate>, expiry: number) =>
    runInDurableObject(gate, async (object: TokenGate, state) => {
      if ((await state.storage.getAlarm()) !== expiry) await object.alarm();
    });

  it("the alarm comes a minute after the first counted request, not at expiry, and is not moved by later requests", async () => {
    const gate = tokenGate();
    const t0 = Date.now();
    await gate.admit(t0 + HOUR, check("b", t0));
    await gate.admit(t0 + HOUR, check("b", t0 + 1_000));
    await gate.admit(t0 + HOUR, check("c", t0 + 2_000));
    await runInDurableObject(gate, async (_: TokenGate, state) => {
      expect(await state.storage.getAlarm()).toBe(t0 + 60_000);
      expect(rows(state)).toBe(3);
    });
    // a request of an endpoint without a limit (no window rows) does not bring it forward or push it back
    await gate.admit(t0 + HOUR);
    await runInDurableObject(gate, async (_: TokenGate, state) => {
      expect(await state.storage.getAlarm()).toBe(t0 + 60_000);
    });
  });

  it("fired while requests are still in the window: keeps them and re-arms for the last one", async () => {
    const gate = tokenGate();
    const t0 = Date.now();
    await gate.admit(t0 + HOUR, check("b", t0));
    await gate.admit(t0 + HOUR, check("b", t0 + 5_000));
    expect(await runDurableObjectAlarm(gate)).toBe(true); // runs now, well inside the window
    await runInDurableObject(gate, async (_: TokenGate, state) => {
      expect(rows(state)).toBe(2);
      expect(await state.storage.getAlarm()).toBe(t0 + 65_000);
    });
    // counting is unaffected
    expect(await gate.admit(t0 + HOUR, check("b", t0 + 6_000, 3))).toMatchObject({ ok: true, window: { remaining: 0 } });
  });

  it("a minute after the last request the window rows are gone; the revocation flag stays until expiry", async () => {
    const gate = tokenGate();
    const t0 = Date.now();
    // requests made more than a minute ago (the caller's clock): their window has passed
    await gate.admit(t0 + HOUR, check("GET /v0/accounts/current", t0 - 70_000));
    await gate.admit(t0 + HOUR, check("POST /v0/accounts", t0 - 65_000, 750));
    await gate.revoke(t0 + HOUR);
    await runWindowAlarm(gate, t0 + HOUR);
    await runInDurableObject(gate, async (_: TokenGate, state) => {
      expect(rows(state)).toBe(0);
      expect(state.storage.kv.get("revoked")).toBe(true);
      expect(kvKeys(state)).toEqual(["alarm_at", "cleanup_at", "revoked"]);
      // next and last: the expiry
      expect(await state.storage.getAlarm()).toBe(t0 + HOUR);
    });
    expect(await gate.admit(t0 + HOUR, check("GET /v0/accounts/current", t0))).toEqual({ ok: false, reason: "revoked" });
    // at expiry everything goes
    expect(await runDurableObjectAlarm(gate)).toBe(true);
    await runInDurableObject(gate, (_: TokenGate, state) => {
      expect(kvKeys(state)).toEqual([]);
      expect(rows(state)).toBe(0);
    });
  });

  it("an idle gate that was never revoked holds no rows and no flag", async () => {
    const gate = tokenGate();
    const t0 = Date.now();
    for (let i = 0; i < 5; i++) await gate.admit(t0 + HOUR, check(`GET /v0/registrations/r${i}`, t0 - 90_000 + i * 1000));
    await runWindowAlarm(gate, t0 + HOUR);
    await runInDurableObject(gate, async (_: TokenGate, state) => {
      expect(rows(state)).toBe(0);
      expect(state.storage.kv.get("revoked")).toBeUndefined();
      expect(await state.storage.getAlarm()).toBe(t0 + HOUR);
    });
  });
});

describe("PartnerGate: one window across all tokens of the partner", () => {
  it("140 predicted-score requests per minute across tokens; the 141st is partner-limited; other partners unaffected", async () => {
    const partnerId = fresh("partner");
    const bucket = "POST /v0/accounts/metrics/predicted-score";
    const t0 = Date.now();
    const tokens = [tokenGate(), tokenGate(), tokenGate()];
    for (let i = 0; i < 140; i++) {
      const r = await tokens[i % 2]!.admit(t0 + HOUR, check(bucket, t0 + i, 140, "partner", partnerId));
      expect(r.ok, `request ${i + 1}`).toBe(true);
    }
    expect(await tokens[2]!.admit(t0 + HOUR, check(bucket, t0 + 500, 140, "partner", partnerId))).toEqual({
      ok: false,
      reason: "partner-limited",
      retryAfterMs: 59_500,
      window: { limit: 140, remaining: 0, resetMs: 59_500 },
    });
    expect((await tokens[2]!.admit(t0 + HOUR, check(bucket, t0 + 500, 140, "partner", fresh("other-partner")))).ok).toBe(true);
    // exactly when the first leaves the window
    expect((await tokens[0]!.admit(t0 + HOUR, check(bucket, t0 + 59_999, 140, "partner", partnerId))).ok).toBe(false);
    expect((await tokens[0]!.admit(t0 + HOUR, check(bucket, t0 + 60_000, 140, "partner", partnerId))).ok).toBe(true);
  });
});

describe("IpGate: limit, then a bounded queue, then 429", () => {
  it("allows the limit at once, delays the next ones by the slot they wait for, refuses when the queue is full", async () => {
    const gate = ipGate();
    const t0 = Date.now();
    const take = (now: number) => gate.take({ now, limit: 3, windowMs: 60_000, queueSize: 2 });
    for (let i = 0; i < 3; i++) expect(await take(t0)).toMatchObject({ action: "allow", remaining: 2 - i });
    expect(await take(t0)).toMatchObject({ action: "delay", delayMs: 20_000 });
    expect(await take(t0)).toMatchObject({ action: "delay", delayMs: 40_000 });
    expect(await take(t0)).toEqual({ action: "refuse", retryAfterMs: 20_000, limit: 3, remaining: 0, resetMs: 20_000 });
    expect(await take(t0 + 19_999)).toMatchObject({ action: "refuse", retryAfterMs: 1 });
    // one queue place has freed: wait 40 s like the one before
    expect(await take(t0 + 20_000)).toMatchObject({ action: "delay", delayMs: 40_000 });
    // long idle: the full burst is available again
    expect(await take(t0 + 10 * 60_000)).toMatchObject({ action: "allow", remaining: 2 });
  });

  it("spaces sustained traffic at limit per window without refusing it", async () => {
    const gate = ipGate();
    const t0 = Date.now();
    const take = (now: number) => gate.take({ now, limit: 60, windowMs: 60_000, queueSize: 10 });
    for (let i = 0; i < 60; i++) expect((await take(t0)).action).toBe("allow");
    // a client that waits for each answer before the next request is slowed to 1/s, never refused
    let now = t0;
    for (let i = 0; i < 20; i++) {
      const d = await take(now);
      expect(d).toMatchObject({ action: "delay", delayMs: 1000 });
      now += d.action === "delay" ? d.delayMs : 0;
    }
  });

  it("a queue of 0 refuses at once beyond the limit", async () => {
    const gate = ipGate();
    const t0 = Date.now();
    const take = (now: number) => gate.take({ now, limit: 2, windowMs: 60_000, queueSize: 0 });
    expect((await take(t0)).action).toBe("allow");
    expect((await take(t0)).action).toBe("allow");
    expect(await take(t0)).toMatchObject({ action: "refuse", retryAfterMs: 30_000 });
  });
});
