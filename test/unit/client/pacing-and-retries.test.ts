import { describe, expect, it } from "vitest";
import { limitOf, Pacer } from "../../../client/pacer";
import { createTransport } from "../../../client/transport";

/** The client's pacer and retry rules on a fake clock and a scripted fetch (the real Worker is in test/client/). */

describe("limitOf: the service's 8.2 table matched to concrete paths", () => {
  it("a literal segment wins over a parameter; unlimited endpoints have no row", () => {
    expect(limitOf("GET", "/v0/accounts/current")?.template).toBe("/v0/accounts/current");
    expect(limitOf("GET", "/v0/accounts/3f2a")?.template).toBe("/v0/accounts/{account_id}");
    expect(limitOf("post", "/v0/registrations/r1/graded-events")?.rule).toEqual({ kind: "token", limit: 15 });
    expect(limitOf("POST", "/v0/accounts/metrics/predicted-score")?.rule.kind).toBe("partner");
    expect(limitOf("GET", "/v0/graphs")).toBeUndefined();
  });
});

describe("Pacer", () => {
  it("lets the limit through, then waits for the oldest to leave the window (per token and concrete path)", async () => {
    let now = 0;
    const pacer = new Pacer({ now: () => now, marginMs: 0 });
    const a = pacer.keyFor("tok-a", "POST", "/v0/registrations/r1/graded-events");
    expect(a.limit).toBe(15);
    for (let i = 0; i < 15; i++) {
      await pacer.acquire(a.key, a.limit);
      now += 1_000;
    }
    expect(pacer.waitMs(a.key, a.limit)).toBe(45_000);
    const otherRegistration = pacer.keyFor("tok-a", "POST", "/v0/registrations/r2/graded-events");
    const otherToken = pacer.keyFor("tok-b", "POST", "/v0/registrations/r1/graded-events");
    expect(pacer.waitMs(otherRegistration.key, 15)).toBe(0);
    expect(pacer.waitMs(otherToken.key, 15)).toBe(0);
    // partner limits are shared by every token of the client
    expect(pacer.keyFor("tok-a", "POST", "/v0/accounts/metrics/predicted-score").key).toBe(
      pacer.keyFor("tok-b", "POST", "/v0/accounts/metrics/predicted-score").key,
    );
  });

  it("batch assignment: assign and unassign in separate windows", () => {
    const pacer = new Pacer();
    const path = "/v0/learning-instances/l/scoped-goals/g/registrations";
    expect(pacer.keyFor("t", "PUT", path, "assign").limit).toBe(10);
    expect(pacer.keyFor("t", "PUT", path, "unassign").limit).toBe(100);
    expect(pacer.keyFor("t", "PUT", path, "assign").key).not.toBe(pacer.keyFor("t", "PUT", path, "unassign").key);
  });

  it("learns the deployment's limit from RateLimit-Limit and holds on Remaining 0, Retry-After and X-Service-Rate-Delay", () => {
    let now = 0;
    const pacer = new Pacer({ now: () => now, marginMs: 0 });
    const { key, limit } = pacer.keyFor("t", "GET", "/v0/accounts/current");
    pacer.observe(key, { status: 200, headers: new Headers({ "RateLimit-Limit": "2", "RateLimit-Remaining": "1", "RateLimit-Reset": "60" }) });
    void pacer.acquire(key, limit);
    void pacer.acquire(key, limit);
    expect(pacer.waitMs(key, limit)).toBe(60_000);
    const held = pacer.keyFor("t", "GET", "/v0/registrations/r");
    pacer.observe(held.key, { status: 429, headers: new Headers({ "Retry-After": "7" }) }, 7_000);
    expect(pacer.waitMs(held.key, held.limit)).toBe(7_000);
    const token = pacer.keyFor("anonymous", "POST", "/v0/oauth/token");
    pacer.observe(token.key, { status: 200, headers: new Headers({ "X-Service-Rate-Delay": "1500" }) });
    expect(pacer.waitMs(token.key, token.limit)).toBe(1_500);
    now += 1_500;
    expect(pacer.waitMs(token.key, token.limit)).toBe(0);
  });
});

describe("transport retries", () => {
  const scripted = (answers: (() => Response | Error)[]) => {
    const sent: Request[] = [];
    return {
      sent,
      fetch: async (r: Request) => {
        sent.push(r);
        const next = answers.shift()!();
        if (next instanceof Error) throw next;
        return next;
      },
    };
  };

  it("a 429 waits Retry-After (plus jitter) and repeats the request", async () => {
    const s = scripted([() => new Response("{}", { status: 429, headers: { "Retry-After": "1" } }), () => new Response("{}", { status: 200 })]);
    const t = createTransport(s.fetch, new Pacer(), { baseDelayMs: 50 }, () => 0.5);
    const started = Date.now();
    const res = await t.send(new Request("https://x.test/v0/registrations/r1", { headers: { Authorization: "Bearer abc" } }), undefined);
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(s.sent).toHaveLength(2);
  });

  it("exponential backoff with full jitter on network errors, only where a repeat is harmless", async () => {
    const delays: number[] = [];
    let last = Date.now();
    const s = scripted([
      () => new TypeError("reset"),
      () => new TypeError("reset"),
      () => {
        delays.push(Date.now() - last);
        return new Response(null, { status: 204 });
      },
    ]);
    const t = createTransport(s.fetch, new Pacer(), { baseDelayMs: 100 }, () => 1);
    last = Date.now();
    const res = await t.send(new Request("https://x.test/v0/registrations/r1/graded-events", { method: "POST", body: "{}" }), undefined);
    expect(res.status).toBe(204);
    // 100 ms then 200 ms at the top of the jitter range
    expect(delays[0]).toBeGreaterThanOrEqual(300);
    const keys = s.sent.map((r) => r.headers.get("Idempotency-Key"));
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);

    // creating an account is not repeated after a network error: it may have happened
    const once = scripted([() => new TypeError("reset")]);
    const t2 = createTransport(once.fetch, new Pacer(), { baseDelayMs: 1 });
    await expect(t2.send(new Request("https://x.test/v0/accounts", { method: "POST", body: "{}" }), undefined)).rejects.toMatchObject({
      name: "PathwiseNetworkError",
    });
    expect(once.sent).toHaveLength(1);
  });
});
