import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { configFrom } from "../../src/config";
import { openDb } from "../../src/db/client";
import type { IpGate } from "../../src/objects/ip-gate";
import { type TokenGate, windowKey } from "../../src/objects/token-gate";
import { rateLimits, scaledLimit } from "../../src/rate-limits/table";
import { findAccountByExternalId } from "../../src/services/accounts";
import { newPartner, tokenRequest, uniqueId } from "../support/api";
import { assignmentPath, createGoal, goalWorld } from "../support/goals";
import { type ApiResponse, rawCall } from "../support/raw-call";
import { gateOf } from "../support/tokens";
import { api } from "../support/typed-api";

/**
 * Through the Worker (SELF.fetch) with the configured limits: tests cannot change env per test,
 * so expected numbers come from the same config the Worker reads. vitest.config.ts pins
 * RATE_LIMIT_MULTIPLIER=1 and the IP defaults in the test bindings, so these tests always run
 * against the spec's numbers (asserted below) whatever .dev.vars says.
 */
const { rateLimits: cfg } = configFrom(env);

describe("test configuration", () => {
  it("rate limiting is on with the spec's numbers (pinned in vitest.config.ts)", () => {
    expect(cfg).toEqual({ enabled: true, multiplier: 1, ipLimit: 60, ipQueueSize: 10 });
  });
});
const limitOf = (key: string) => scaledLimit(rateLimits[key]!.limit, cfg.multiplier);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let ipCounter = 0;
const freshIp = () => `2001:db8::${crypto.randomUUID().slice(0, 4)}:${(ipCounter++).toString(16)}`;

function expectTooMany(res: ApiResponse, by: string) {
  expect(res.status).toBe(429);
  expect(res.headers.get("X-Service-Rate-Exceeded")).toBe(by);
  const retryAfter = Number(res.headers.get("Retry-After"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(res.body).toMatchObject({ message: "Too many requests.", code: 429 });
  expect(res.body.error_id).toMatch(UUID);
}

describe("token limits through the API", () => {
  it("GET /v0/accounts/current: 15 per minute per token, the 16th is 429 token-limited; other endpoints and tokens still pass", async () => {
    const p = await newPartner();
    const limit = limitOf("GET /v0/accounts/current");
    for (let i = 1; i <= limit; i++) {
      const res = await api("GET", "/v0/accounts/current", { token: p.adminToken });
      expect(res.status, `request ${i}`).toBe(200);
      expect(res.headers.get("RateLimit-Limit")).toBe(String(limit));
      expect(res.headers.get("RateLimit-Remaining")).toBe(String(limit - i));
      const reset = Number(res.headers.get("RateLimit-Reset"));
      expect(reset).toBeGreaterThanOrEqual(1);
      expect(reset).toBeLessThanOrEqual(60);
    }
    const refused = await api("GET", "/v0/accounts/current", { token: p.adminToken });
    expectTooMany(refused, "token-limited");
    expect(refused.headers.get("RateLimit-Limit")).toBe(String(limit));
    expect(refused.headers.get("RateLimit-Remaining")).toBe("0");
    expect(refused.headers.get("X-Request-Id")).toBeTruthy();

    const other = await api("GET", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: p.admin_account_id } });
    expect(other.status).toBe(200);
    expect(other.headers.get("RateLimit-Remaining")).toBe(String(limitOf("GET /v0/accounts/{account_id}") - 1));

    const secondToken = await p.tokenFor(p.admin_external_user_id);
    expect((await api("GET", "/v0/accounts/current", { token: secondToken })).status).toBe(200);
  });

  it("counts per concrete path; spellings of one id share a window", async () => {
    const p = await newPartner();
    const limit = limitOf("GET /v0/accounts/{account_id}");
    const id = p.admin_account_id;
    for (let i = 0; i < limit; i++) expect((await api("GET", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: id } })).status).toBe(200);
    expectTooMany(await api("GET", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: id.toUpperCase() } }), "token-limited");
    const another = await api("GET", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: crypto.randomUUID() } });
    expect(another.status).toBe(404);
    expect(another.headers.get("RateLimit-Remaining")).toBe(String(limit - 1));
  });

  it("error responses of a limited endpoint carry the informational headers too", async () => {
    const p = await newPartner();
    const res = await api("GET", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: "not-a-uuid" } });
    expect(res.status).toBe(400);
    expect(res.headers.get("RateLimit-Limit")).toBe(String(limitOf("GET /v0/accounts/{account_id}")));
    expect(res.headers.get("RateLimit-Remaining")).toBe(String(limitOf("GET /v0/accounts/{account_id}") - 1));
  });

  it("a refused request is not processed: POST /v0/accounts beyond its 750 creates nothing and is not counted", async () => {
    const p = await newPartner();
    const limit = limitOf("POST /v0/accounts");
    const gate = await gateOf(p.adminToken, "POST /v0/accounts");
    // Exhaust the token's window for POST /v0/accounts (750 requests recorded just now, in the shard of
    // the token's gate that counts it; the gate names windows by digest).
    const window = await windowKey("POST /v0/accounts");
    await runInDurableObject(gate, (_: TokenGate, state) => {
      const now = Date.now();
      for (let i = 0; i < limit; i++) state.storage.sql.exec("INSERT INTO rl_hits (bucket, t) VALUES (?, ?)", window, now);
    });
    const externalUserId = uniqueId("refused");
    const res = await api("POST", "/v0/accounts", { token: p.adminToken, body: { external_user_id: externalUserId } });
    expectTooMany(res, "token-limited");
    expect(await findAccountByExternalId(openDb(env.DB), p.partner_id, externalUserId)).toBeUndefined();
    await runInDurableObject(gate, (_: TokenGate, state) => {
      expect(state.storage.sql.exec("SELECT COUNT(*) AS n FROM rl_hits WHERE bucket = ?", window).one().n).toBe(limit);
    });
    // other writes of the same token still work
    const li = await api("POST", "/v0/learning-instances", { token: p.adminToken, body: { graph_id: "gref-none", name: "Course" } });
    expect(li.status).not.toBe(429);
  });
});

describe("batch goal assignment: assign and unassign requests in separate windows", () => {
  it("10 assign requests per minute; unassign requests still pass (100 per minute); a malformed body has its own window", async () => {
    const w = await goalWorld();
    const goal = await createGoal(w.p, w.li.id);
    const key = "PUT /v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations";
    const assignLimit = scaledLimit(rateLimits[key]!.actions!.assign!, cfg.multiplier);
    const unassignLimit = scaledLimit(rateLimits[key]!.actions!.unassign!, cfg.multiplier);
    const batch = (action: "assign" | "unassign") =>
      api("PUT", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations", {
        token: w.p.adminToken,
        path: { id: w.li.id, goal_id: goal.id },
        body: { action, registration_ids: [w.learners[0]!.id] },
      });
    for (let i = 0; i < assignLimit; i++) {
      const res = await batch("assign");
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.headers.get("RateLimit-Limit")).toBe(String(assignLimit));
    }
    expectTooMany(await batch("assign"), "token-limited");
    const unassign = await batch("unassign");
    expect(unassign.status).toBe(200);
    expect(unassign.headers.get("RateLimit-Limit")).toBe(String(unassignLimit));
    expect(unassign.headers.get("RateLimit-Remaining")).toBe(String(unassignLimit - 1));
    // a body that is not JSON, on purpose: it is counted in a window of its own
    const malformed = await rawCall("PUT", assignmentPath(w.li.id, goal.id), {
      token: w.p.adminToken,
      raw: "{nope",
      headers: { "Content-Type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get("RateLimit-Remaining")).toBe(String(assignLimit - 1));
  });
});

describe("IP limits through the API", () => {
  const ipLimit = scaledLimit(cfg.ipLimit, cfg.multiplier);
  const interval = 60_000 / ipLimit;
  const unknownClientTokenRequest = (ip: string) =>
    rawCall("POST", "/v0/oauth/token", {
      raw: "grant_type=client_credentials&scope=x",
      headers: { Authorization: `Basic ${btoa("no-such-client:secret")}`, "Content-Type": "application/x-www-form-urlencoded", "CF-Connecting-IP": ip },
    });

  /**
   * The queueing arithmetic (allow, delay up to the queue size, refuse) is covered with an injected
   * clock in gates.test.ts; here, only the wiring through the Worker: a request beyond the limit is
   * answered late and still processed, and a full queue is refused with 429 ip-limited.
   */
  it("token endpoint: the limit passes, the next one waits with X-Service-Rate-Delay and is processed", async () => {
    const ip = freshIp();
    const responses = await Promise.all(Array.from({ length: ipLimit + 1 }, () => unknownClientTokenRequest(ip)));
    const delayed = responses.filter((r) => r.headers.has("X-Service-Rate-Delay"));
    expect(responses.filter((r) => !r.headers.has("X-Service-Rate-Delay"))).toHaveLength(ipLimit);
    expect(delayed).toHaveLength(1);
    for (const r of responses) expect(r.status).toBe(401); // processed: unknown client
    const delay = Number(delayed[0]!.headers.get("X-Service-Rate-Delay"));
    expect(delay).toBeLessThanOrEqual(interval);
    expect(delay).toBeGreaterThan(interval - 1000);
  });

  it("token endpoint: with the (IP, path) queue full the request is refused with 429 ip-limited", async () => {
    const ip = freshIp();
    const gate = env.IP_GATE.get(env.IP_GATE.idFromName(`${ip} /v0/oauth/token`));
    // the gate's whole state is its theoretical arrival time: this one means `limit` requests plus a full queue are pending
    await runInDurableObject(gate, (_: IpGate, state) => {
      state.storage.kv.put("tat", Date.now() + (ipLimit + cfg.ipQueueSize) * interval);
    });
    expectTooMany(await unknownClientTokenRequest(ip), "ip-limited");
  });

  it("token endpoint answers carry the informational headers; other IPs and paths are not affected", async () => {
    const p = await newPartner();
    const res = await tokenRequest(p.client_id, p.client_secret, { grant_type: "client_credentials", scope: p.admin_external_user_id });
    expect(res.status).toBe(200);
    expect(res.headers.get("RateLimit-Limit")).toBe(String(ipLimit));
    expect(Number(res.headers.get("RateLimit-Remaining"))).toBeLessThan(ipLimit);
  });

  it("failed authentication is IP-limited per (IP, path): the 401 beyond the limit is answered late", async () => {
    const ip = freshIp();
    const responses = await Promise.all(Array.from({ length: ipLimit + 1 }, () => api("GET", "/v0/accounts/current", { headers: { "CF-Connecting-IP": ip } })));
    expect(responses.every((r) => r.status === 401)).toBe(true);
    const delayed = responses.filter((r) => r.headers.has("X-Service-Rate-Delay"));
    expect(delayed).toHaveLength(1);
    expect(Number(delayed[0]!.headers.get("X-Service-Rate-Delay"))).toBeGreaterThan(interval - 1000);
    expect(delayed[0]!.headers.get("WWW-Authenticate")).toContain("Bearer");
    // another path from the same IP has its own budget
    const other = await api("GET", "/v0/learning-instances", { headers: { "CF-Connecting-IP": ip } });
    expect(other.status).toBe(401);
    expect(other.headers.has("X-Service-Rate-Delay")).toBe(false);
  });
});
