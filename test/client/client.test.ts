import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createPathwiseClient, eventBatches, type HistoryEvent, isPathwiseError, type PathwiseClient, PathwiseError } from "../../client";
import { createAccount, createInstance, newPartner, type Partner, register, uniqueId } from "../support/api";
import { createGoal, goalBody } from "../support/goals";
import { BASE } from "../support/raw-call";

/**
 * pathwise/client against the real Worker (SELF.fetch): OAuth, token renewal, typed errors, pacing,
 * idempotent retries, batches and paging. Faults (a dropped response, a corrupted token) are injected
 * in the fetch function between the client and the Worker; every answer is the Worker's own.
 */

interface Seen {
  method: string;
  path: string;
  grant?: string;
  idempotencyKey?: string | null;
  body?: any;
}

/**
 * This file's own client address: the token endpoint is limited per (IP, path) with a queue, and the
 * other test files of the same workerd request tokens too (without an address: "unknown"); sharing
 * their window made the token requests here wait out a 429 under load.
 */
const CLIENT_IP = "203.0.113.41";

/** SELF.fetch, recording what the client sent; `fault` may replace the Worker's answer or the request. */
function recordingFetch(seen: Seen[], fault?: (request: Request, n: number) => Request | "drop-after" | undefined) {
  let n = 0;
  return async (original: Request): Promise<Response> => {
    const request = new Request(original, { headers: new Headers(original.headers) });
    request.headers.set("CF-Connecting-IP", CLIENT_IP);
    const url = new URL(request.url);
    const text = request.method === "GET" ? "" : await request.clone().text();
    const entry: Seen = { method: request.method, path: url.pathname, idempotencyKey: request.headers.get("Idempotency-Key") };
    if (url.pathname === "/v0/oauth/token") entry.grant = new URLSearchParams(text).get("grant_type") ?? undefined;
    else if (text) entry.body = JSON.parse(text);
    seen.push(entry);
    const f = fault?.(request, n++);
    if (f === "drop-after") {
      await (await SELF.fetch(request)).arrayBuffer();
      throw new TypeError("network connection lost");
    }
    return SELF.fetch(f ?? request);
  };
}

let p: Partner;
let li: { id: string };
let goalId: string;
let learners: { id: string; account_id: string }[];
let learnerExternalId: string;

beforeAll(async () => {
  p = await newPartner("Client partner");
  li = await createInstance(p);
  learners = [];
  for (let i = 0; i < 5; i++) {
    const account = await createAccount(p);
    if (i === 0) learnerExternalId = account.external_user_id;
    learners.push(await register(p, account.id, li.id, "learner"));
  }
  // assigned to the learners registered so far
  goalId = (await createGoal(p, li.id, goalBody({ config: { assign_to: "learners" } }))).id;
});

const admin = (seen: Seen[] = [], extra: Partial<Parameters<typeof createPathwiseClient>[0]> = {}): PathwiseClient =>
  createPathwiseClient({
    baseUrl: BASE,
    credentials: { clientId: p.client_id, clientSecret: p.client_secret },
    scope: p.admin_external_user_id,
    fetch: recordingFetch(seen),
    ...extra,
  });

describe("OAuth", () => {
  it("client credentials per scope, cached: one token request per scope for many calls", async () => {
    const seen: Seen[] = [];
    const pw = admin(seen);
    const [me, again] = await Promise.all([pw.GET("/v0/accounts/current"), pw.GET("/v0/accounts/current")]);
    expect(me.id).toBe(p.admin_account_id);
    expect(again.entitlements).toContain("partner_admin");
    const learner = pw.as(learnerExternalId);
    expect((await learner.GET("/v0/accounts/current")).external_user_id).toBe(learnerExternalId);
    await learner.GET("/v0/accounts/current");
    expect(seen.filter((s) => s.grant === "client_credentials")).toHaveLength(2);
    expect(await pw.accessToken()).not.toBe(await learner.accessToken());
  });

  it("renews before expiry with the refresh grant", async () => {
    const seen: Seen[] = [];
    let now = Date.now();
    const pw = admin(seen, { clock: () => now });
    const first = await pw.accessToken();
    now += 3_500_000; // 100 s before the hour's expiry: inside the renewal margin
    const second = await pw.accessToken();
    expect(second).not.toBe(first);
    expect(seen.map((s) => s.grant)).toEqual(["client_credentials", "refresh_token"]);
    expect((await pw.GET("/v0/accounts/current")).id).toBe(p.admin_account_id);
  });

  it("renews after a 401 and repeats the request once", async () => {
    const seen: Seen[] = [];
    const pw = admin(seen, {
      // the first API request carries a token the Worker does not know
      fetch: recordingFetch(seen, (r, n) => {
        if (n !== 1) return undefined;
        const headers = new Headers(r.headers);
        headers.set("Authorization", "Bearer pw1.forged.token");
        return new Request(r, { headers });
      }),
    });
    expect((await pw.GET("/v0/accounts/current")).id).toBe(p.admin_account_id);
    expect(seen.map((s) => s.grant ?? s.path)).toEqual(["client_credentials", "/v0/accounts/current", "refresh_token", "/v0/accounts/current"]);
  });

  it("a refused client answers typed OAuth errors", async () => {
    const pw = createPathwiseClient({ baseUrl: BASE, credentials: { clientId: p.client_id, clientSecret: "wrong" }, scope: "x", fetch: (r) => SELF.fetch(r) });
    const error = await pw.GET("/v0/accounts/current").catch((e: unknown) => e);
    expect(isPathwiseError(error)).toBe(true);
    expect(error).toMatchObject({ status: 401, code: 401, oauthError: "invalid_client" });
    expect((error as PathwiseError).error_id).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("typed errors", () => {
  it("carry code, message, error_id and details; the raw client returns them as values", async () => {
    const pw = admin();
    const missing = await pw.GET("/v0/registrations/{reg_id}", { params: { path: { reg_id: crypto.randomUUID() } } }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(PathwiseError);
    expect(missing).toMatchObject({ status: 404, code: 404, request: expect.stringMatching(/^GET \/v0\/registrations\//) });
    expect((missing as PathwiseError).error_id).toMatch(/^[0-9a-f-]{36}$/);
    expect((missing as PathwiseError).requestId).toBeTruthy();

    const invalid = await pw.POST("/v0/accounts", { body: { external_user_id: "" } }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 400, details: [expect.objectContaining({ path: "body.external_user_id" })] });

    const { data, error, response } = await pw.api.GET("/v0/learning-instances/{id}", { params: { path: { id: crypto.randomUUID() } } });
    expect(data).toBeUndefined();
    expect(response.status).toBe(404);
    expect(error).toMatchObject({ code: 404, message: expect.any(String), error_id: expect.any(String) });
  });

  it("a learner's token is refused the instructor's table (403)", async () => {
    const table = admin()
      .as(learnerExternalId)
      .POST("/v0/learning-instances/{id}/metrics/status-and-progress", { params: { path: { id: li.id } }, body: { goal_ids: [goalId] } });
    await expect(table).rejects.toMatchObject({ status: 403, code: 403 });
  });
});

describe("rate limits", () => {
  it("paces a token's endpoint to its 8.2 limit: the 16th GET /v0/accounts/current in a minute waits instead of drawing a 429", async () => {
    const seen: Seen[] = [];
    const pw = admin(seen);
    await Promise.all(Array.from({ length: 15 }, () => pw.GET("/v0/accounts/current")));
    const controller = new AbortController();
    const sixteenth = pw.api.GET("/v0/accounts/current", { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(seen.filter((s) => s.path === "/v0/accounts/current")).toHaveLength(15);
    controller.abort();
    await expect(sixteenth).rejects.toBeDefined();
  });

  it("without pacing, the Worker's 429 arrives as a typed error with who limited and when to retry", async () => {
    const pw = admin([], { pacing: { multiplier: 100 }, retry: { retries: 0 } });
    const results = await Promise.allSettled(Array.from({ length: 16 }, () => pw.GET("/v0/accounts/current")));
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected").map((r) => r.reason);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ status: 429, rateLimit: { limitedBy: "token-limited", retryAfterMs: expect.any(Number) } });
    expect(refused[0].rateLimit.retryAfterMs).toBeGreaterThan(0);
  });
});

describe("events", () => {
  const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
  const evidence = async (pw: PathwiseClient, regId: string, objective: string) =>
    (await pw.POST("/v0/registrations/{id}/metrics/proficiency/rows", { params: { path: { id: regId } }, body: { learning_objective_ids: [objective] } }))
      .data[0]!.values[0]!.evidence;

  it("an event post carries an Idempotency-Key; a retry after a lost response does not count twice", async () => {
    const seen: Seen[] = [];
    const pw = admin(seen, {
      // the Worker stores the event, then the connection drops before the answer arrives
      fetch: recordingFetch(seen, (r, n) => (n === 1 && r.url.endsWith("/graded-events") ? "drop-after" : undefined)),
      retry: { baseDelayMs: 10 },
    });
    const reg = learners[1]!.id;
    await pw.POST("/v0/registrations/{id}/graded-events", {
      params: { path: { id: reg } },
      body: { module_id: "mref-a1", interaction_end_time: at(1), is_correct: true, is_complete: true },
    });
    const posts = seen.filter((s) => s.path.endsWith("/graded-events"));
    expect(posts).toHaveLength(2);
    expect(posts[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(posts[1]!.idempotencyKey).toBe(posts[0]!.idempotencyKey);
    expect(await evidence(pw, reg, "lref-a")).toBe(1);
  });

  it("sendEvents: a 1,100-event history in batches of ≤ 500, newest first in each, oldest batch first; sending it again counts nothing twice", async () => {
    const history: HistoryEvent[] = Array.from({ length: 1_100 }, (_, i) => ({
      type: "graded-events" as const,
      module_id: i % 2 ? "mref-b1" : "mref-b2",
      interaction_end_time: at(2_000 - i),
      is_correct: i % 3 !== 0,
      is_complete: true,
      duration: 20_000,
    }));
    // shuffled: the helper orders them
    const shuffled = history
      .map((e, i) => ({ e, k: (i * 7919) % 1_100 }))
      .sort((a, b) => a.k - b.k)
      .map((x) => x.e);
    const seen: Seen[] = [];
    const pw = admin(seen);
    const reg = learners[2]!.id;
    expect(await pw.sendEvents(reg, shuffled, { goal_id: goalId })).toEqual({ batches: 3, events: 1_100 });
    const batches = seen.filter((s) => s.path.endsWith("/batch-events"));
    expect(batches.map((b) => b.body.events.length)).toEqual([500, 500, 100]);
    for (const b of batches) {
      const times = b.body.events.map((e: HistoryEvent) => Date.parse((e as { interaction_end_time: string }).interaction_end_time));
      expect(times).toEqual([...times].sort((x, y) => y - x));
      expect(b.idempotencyKey).toMatch(/^pw-batch-/);
    }
    expect(Date.parse(batches[0]!.body.events[0].interaction_end_time)).toBeLessThan(Date.parse(batches[1]!.body.events.at(-1).interaction_end_time));
    expect(await evidence(pw, reg, "lref-b")).toBe(1_100);
    await pw.sendEvents(reg, history, { goal_id: goalId });
    expect(await evidence(pw, reg, "lref-b")).toBe(1_100);
  });

  it("eventBatches keeps every event once", () => {
    const events = Array.from({ length: 1_001 }, (_, i) => ({ type: "ungraded-events" as const, module_id: "mref-a3", interaction_end_time: at(i) }));
    const batches = eventBatches(events);
    expect(batches.map((b) => b.length)).toEqual([500, 500, 1]);
    expect(new Set(batches.flat()).size).toBe(1_001);
  });
});

describe("paging", () => {
  it("status-and-progress: every row across pages, equal to one big page", async () => {
    const pw = admin();
    const rows = [];
    for await (const row of pw.statusAndProgress(li.id, { goal_ids: [goalId], registrations_per_page: 2 })) rows.push(row);
    const whole = await pw.POST("/v0/learning-instances/{id}/metrics/status-and-progress", { params: { path: { id: li.id } }, body: { goal_ids: [goalId] } });
    expect(rows.map((r) => r.registration_id)).toEqual(learners.map((l) => l.id));
    expect(rows).toEqual(whole.data);
  });

  it("metrics rows: every row across pages", async () => {
    const pw = admin();
    const ids = [];
    for await (const row of pw.metricRows(li.id, "expected-score", { goal_ids: [goalId], registrations_per_page: 2 })) {
      expect(row.values[0]!.status).toMatch(/estimated|insufficient_data/);
      ids.push(row.registration_id);
    }
    expect(ids).toEqual(learners.map((l) => l.id));
  });

  it("lists: every element across offset/limit pages", async () => {
    const pw = admin();
    const regs = [];
    for await (const r of pw.list("/v0/learning-instances/{li_id}/registrations", { params: { path: { li_id: li.id }, query: { limit: 2, type: "learner" } } }))
      regs.push(r.id);
    expect(regs).toEqual(learners.map((l) => l.id));
    const goals = [];
    for await (const g of pw.list("/v0/learning-instances/{id}/scoped-goals", { params: { path: { id: li.id } } })) goals.push(g.id);
    expect(goals).toEqual([goalId]);
  });
});

it("uniqueId is usable for fresh accounts through the client", async () => {
  const created = await admin().POST("/v0/accounts", { body: { external_user_id: uniqueId("client") } });
  expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
});
