import { env, SELF } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { largestGraph } from "../../bench/lib/largest-graph";
import type { Schemas } from "../../client";
import { RETENTION_DAYS_MAX } from "../../src/schemas/data-lifecycle";
import {
  ACCOUNTS_BATCH_MAX,
  ASSIGNMENT_BATCH_MAX,
  GOAL_TARGETS_MAX,
  LIST_LIMIT_MAX,
  MAX_ANSWER_BYTES,
  MAX_BATCH_EVENTS,
  METRICS_GOALS_MAX,
  METRICS_OBJECTIVES_MAX,
  METRICS_PAGE_MAX,
  STATUS_PAGE_MAX,
  STATUS_REQUEST_GOALS_MAX,
} from "../../src/schemas/limits";
import { freshAdminToken, type Json, newPartner, type Partner } from "../support/api";
import { BASE, rawCall } from "../support/raw-call";
import { api } from "../support/typed-api";

/**
 * docs/security.md "Limits": every endpoint's largest allowed request finishes well inside
 * the Workers CPU limit (30 s by default) with an answer of at most 10 MB. One case per operation of
 * the served OpenAPI document (a new operation fails the first test until it has a case): the request
 * at every maximum its request can reach (list lengths, pages, goal ids, the 6 MiB graph, 2,000-target
 * goals, 500 statements naming 500 registrations, the predicted-score corners), answered as a partner
 * expects (2xx), within WALL_BOUND_MS wall time (wall time bounds the request's CPU time) and
 * MAX_ANSWER_BYTES. Stored data here is moderate (500 learners, 40 goals); the benchmark measures the
 * stored-data maxima (10,000 learners: `npm run bench -- bounded-work`, docs/security.md "Limits").
 */

/** Half the Workers CPU limit, in wall time on a shared test machine: a request that passes it is no longer "well inside". */
const WALL_BOUND_MS = 15_000;
const LEARNERS = 500;
const GOALS = STATUS_REQUEST_GOALS_MAX;
const TARGETS_PER_GOAL = 200;

interface World {
  p: Partner;
  graph: { label: string; objectives: string[]; atoms: string[] };
  li: string;
  spareLi: string;
  accounts: { id: string; external_user_id: string }[];
  registrations: string[];
  goals: string[];
}
let w: World;

async function ok(method: string, path: string, body?: unknown, token?: string): Promise<Json> {
  const res = await rawCall(method, path, { token: token ?? (await freshAdminToken(w.p)), body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`);
  return res.body;
}

async function chunked<T, R>(items: T[], size: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(task))));
  return out;
}

beforeAll(async () => {
  const p = await newPartner("Largest requests");
  w = { p } as World;
  const doc = largestGraph("gref-largest");
  await ok("POST", "/v0/graphs", doc);
  const graph = {
    label: doc.label,
    objectives: doc.learning_objectives.map((o) => o.id),
    atoms: doc.modules.filter((m) => m.type !== "instructional").map((m) => m.id),
  };
  const li = (await ok("POST", "/v0/learning-instances", { graph_id: doc.label, name: "Largest requests" })).id as string;
  const spareLi = (await ok("POST", "/v0/learning-instances", { graph_id: doc.label, name: "Spare" })).id as string;
  const batches = await chunked(
    Array.from({ length: LEARNERS / ACCOUNTS_BATCH_MAX }, (_, b) => b),
    5,
    (b) =>
      ok("POST", "/v0/batch", {
        requests: Array.from({ length: ACCOUNTS_BATCH_MAX }, (_, i) => ({
          method: "post",
          relative_url: "/accounts",
          body: { external_user_id: `largest-${b}-${i}` },
        })),
      }),
  );
  const accounts = batches.flatMap((b) =>
    (b.responses as Json[]).map((r) => ({ id: r.body.account_id as string, external_user_id: r.body.external_user_id as string })),
  );
  const registrations = await chunked(
    accounts,
    25,
    async (a) => (await ok("POST", "/v0/registrations", { account_id: a.id, learning_instance_id: li, type: "learner" })).id as string,
  );
  const goals = await chunked(
    Array.from({ length: GOALS }, (_, g) => g),
    5,
    async (g) =>
      (
        await ok("POST", `/v0/learning-instances/${li}/scoped-goals`, {
          name: `Goal ${g}`,
          adaptive_behavior: "practice",
          targets: { include: graph.objectives.slice(g * 10, g * 10 + TARGETS_PER_GOAL) },
          scope: { remediation_depth: "one" },
        })
      ).id as string,
  );
  // every goal assigned to the first page of learners; the first goal to every learner
  for (const goal of goals) {
    await ok("PUT", `/v0/learning-instances/${li}/scoped-goals/${goal}/registrations`, {
      action: "assign",
      registration_ids: registrations.slice(0, METRICS_PAGE_MAX),
    });
  }
  await ok("PUT", `/v0/learning-instances/${li}/scoped-goals/${goals[0]}/registrations`, { action: "assign", registration_type: "learner" });
  const t = Date.now() - 3_600_000;
  await chunked(registrations.slice(0, METRICS_PAGE_MAX), 10, (reg) =>
    ok("POST", `/v0/registrations/${reg}/batch-events`, {
      events: Array.from({ length: 20 }, (_, i) => ({
        type: "graded-events",
        module_id: graph.atoms[(i * 37) % graph.atoms.length],
        is_correct: i % 3 !== 0,
        interaction_end_time: new Date(t - i * 60_000).toISOString(),
      })),
    }),
  );
  w = { p, graph, li, spareLi, accounts, registrations, goals };
  // Predicted scores read the learners' account projections, which the projections queue writes in
  // the background: wait for them, so the scores rest on the events and no seeding work is still
  // under way when the cases are timed (a long request yields to it: src/services/work-slice.ts).
  const withEvents = JSON.stringify(accounts.slice(0, METRICS_PAGE_MAX).map((a) => a.id));
  await vi.waitFor(
    async () => {
      const row = await env.DB.prepare("SELECT COUNT(DISTINCT account_id) AS n FROM account_projections WHERE account_id IN (SELECT value FROM json_each(?))")
        .bind(withEvents)
        .first<{ n: number }>();
      expect(row?.n).toBe(METRICS_PAGE_MAX);
    },
    { timeout: 120_000, interval: 500 },
  );
}, 600_000);

interface LargeRequest {
  method: string;
  path: string;
  body?: unknown;
  /** a body sent as is (the token endpoint's form) */
  raw?: string;
  headers?: Record<string, string>;
}

interface Case {
  /** the largest allowed request of this operation */
  shape: string;
  request: () => Promise<LargeRequest>;
}

const objectiveIds = (from: number, n: number) => w.graph.objectives.slice(from, from + n).map((id) => ({ learning_objective_id: id }));
const predicted = (accounts: number, groups: Json[], levels: number[]) => ({
  method: "POST",
  path: "/v0/accounts/metrics/predicted-score",
  body: {
    account_ids: w.accounts.slice(0, accounts).map((a) => a.id),
    graph_ids: [w.graph.label],
    grouped_learning_objectives: groups,
    confidence_levels: levels,
    get_overall_score: true,
    get_learning_objective_scores: true,
  },
});
const metricBody = (metric: string, paged: boolean) => ({
  ...(metric === "active-time"
    ? {
        start_date: new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10),
        end_date: new Date().toISOString().slice(0, 10),
        goal_ids: w.goals.slice(0, METRICS_GOALS_MAX),
      }
    : { goal_ids: w.goals.slice(0, METRICS_GOALS_MAX) }),
  ...(metric === "proficiency" ? { learning_objective_ids: w.graph.objectives.slice(0, METRICS_OBJECTIVES_MAX) } : {}),
  ...(paged ? { registrations_per_page: METRICS_PAGE_MAX } : {}),
});
const longName = (prefix: string, n: number) => `${prefix}-${"x".repeat(n - prefix.length - 1)}`;
let spareCount = 0;
/** A fresh learner registration of the spare instance (for the requests that remove or change one). */
const spareRegistration = async () =>
  (await ok("POST", "/v0/registrations", { account_id: w.accounts[spareCount++]?.id, learning_instance_id: w.spareLi, type: "learner" })).id as string;
const spareGoal = async () =>
  (await ok("POST", `/v0/learning-instances/${w.spareLi}/scoped-goals`, { name: "Spare", adaptive_behavior: "practice", targets: { include: ["lref-o1"] } }))
    .id as string;

const CASES: Record<string, Case[]> = {
  "POST /v0/oauth/token": [
    {
      shape: "client credentials for a 255-character scope",
      request: async () => {
        await ok("POST", "/v0/accounts", { external_user_id: longName("token", 255) });
        return {
          method: "POST",
          path: "/v0/oauth/token",
          headers: {
            Authorization: `Basic ${btoa(`${w.p.client_id}:${w.p.client_secret}`)}`,
            "Content-Type": "application/x-www-form-urlencoded",
            "CF-Connecting-IP": "198.19.0.1",
          },
          raw: new URLSearchParams({ grant_type: "client_credentials", scope: longName("token", 255) }).toString(),
        };
      },
    },
  ],
  "POST /v0/accounts": [
    {
      shape: "a 255-character external_user_id",
      request: async () => ({ method: "POST", path: "/v0/accounts", body: { external_user_id: longName("acct", 255) } }),
    },
  ],
  "GET /v0/accounts/current": [{ shape: "the admin", request: async () => ({ method: "GET", path: "/v0/accounts/current" }) }],
  "GET /v0/accounts/{account_id}": [{ shape: "an account", request: async () => ({ method: "GET", path: `/v0/accounts/${w.accounts[0]?.id}` }) }],
  "DELETE /v0/accounts/{account_id}": [
    {
      shape: "an account with live tokens",
      request: async () => {
        const account = await ok("POST", "/v0/accounts", { external_user_id: "largest-deleted" });
        await w.p.tokenFor("largest-deleted");
        return { method: "DELETE", path: `/v0/accounts/${account.id}` };
      },
    },
  ],
  "POST /v0/batch": [
    {
      shape: `${ACCOUNTS_BATCH_MAX} accounts`,
      request: async () => ({
        method: "POST",
        path: "/v0/batch",
        body: {
          requests: Array.from({ length: ACCOUNTS_BATCH_MAX }, (_, i) => ({
            method: "post",
            relative_url: "/accounts",
            body: { external_user_id: longName(`b${i}`, 255) },
          })),
        },
      }),
    },
  ],
  "POST /v0/learning-instances": [
    {
      shape: "a 200-character name, start and end dates",
      request: async () => ({
        method: "POST",
        path: "/v0/learning-instances",
        body: { graph_id: w.graph.label, name: longName("Course", 200), start_date: "2027-01-04T00:00:00Z", end_date: "2100-12-31T00:00:00Z" },
      }),
    },
  ],
  "GET /v0/learning-instances": [
    { shape: `limit=${LIST_LIMIT_MAX}`, request: async () => ({ method: "GET", path: `/v0/learning-instances?limit=${LIST_LIMIT_MAX}` }) },
  ],
  "GET /v0/learning-instances/{id}": [{ shape: "the instance", request: async () => ({ method: "GET", path: `/v0/learning-instances/${w.li}` }) }],
  "PUT /v0/learning-instances/{id}": [
    {
      shape: "a 200-character name",
      request: async () => ({ method: "PUT", path: `/v0/learning-instances/${w.spareLi}`, body: { name: longName("Spare", 200) } }),
    },
  ],
  "DELETE /v0/learning-instances/{id}": [
    { shape: `${LEARNERS} registrations, ${GOALS} goals (the last case)`, request: async () => ({ method: "DELETE", path: `/v0/learning-instances/${w.li}` }) },
  ],
  // data lifecycle (docs/privacy.md): the export streams (docs/security.md "Limits": its size grows with the history)
  "GET /v0/accounts/{account_id}/export": [
    { shape: "a learner with events and 40 goals (JSON)", request: async () => ({ method: "GET", path: `/v0/accounts/${w.accounts[0]?.id}/export` }) },
    {
      shape: "a learner with events and 40 goals (xAPI)",
      request: async () => ({ method: "GET", path: `/v0/accounts/${w.accounts[0]?.id}/export?format=xapi` }),
    },
  ],
  "GET /v0/data-requests": [{ shape: `limit=${LIST_LIMIT_MAX}`, request: async () => ({ method: "GET", path: `/v0/data-requests?limit=${LIST_LIMIT_MAX}` }) }],
  "GET /v0/partner/settings": [{ shape: "the settings", request: async () => ({ method: "GET", path: "/v0/partner/settings" }) }],
  "PUT /v0/partner/settings": [
    {
      shape: "the longest retention",
      request: async () => ({ method: "PUT", path: "/v0/partner/settings", body: { event_retention_days: RETENTION_DAYS_MAX } }),
    },
  ],
  "POST /v0/accounts/{account_id}/erasure": [
    {
      shape: "a learner with events and 40 goals",
      request: async () => ({ method: "POST", path: `/v0/accounts/${w.accounts[METRICS_PAGE_MAX - 1]?.id}/erasure` }),
    },
  ],
  "GET /v0/erasures/{erasure_id}": [
    {
      shape: "the account's erasure",
      request: async () => {
        const accepted = await ok("POST", `/v0/accounts/${w.accounts[METRICS_PAGE_MAX - 1]?.id}/erasure`);
        return { method: "GET", path: `/v0/erasures/${accepted.erasure_id}` };
      },
    },
  ],
  "POST /v0/learning-instances/{id}/erasure": [
    {
      shape: "the spare instance and its registrations",
      request: async () => ({ method: "POST", path: `/v0/learning-instances/${w.spareLi}/erasure` }),
    },
  ],
  "GET /v0/learning-instances/{li_id}/registrations": [
    {
      shape: `limit=${LIST_LIMIT_MAX}`,
      request: async () => ({ method: "GET", path: `/v0/learning-instances/${w.li}/registrations?limit=${LIST_LIMIT_MAX}` }),
    },
  ],
  "POST /v0/registrations": [
    {
      shape: "a registration",
      request: async () => ({
        method: "POST",
        path: "/v0/registrations",
        body: { account_id: w.accounts[400]?.id, learning_instance_id: w.spareLi, type: "learner" },
      }),
    },
  ],
  "GET /v0/registrations/{reg_id}": [{ shape: "a registration", request: async () => ({ method: "GET", path: `/v0/registrations/${w.registrations[0]}` }) }],
  "DELETE /v0/registrations/{reg_id}": [
    { shape: "a registration", request: async () => ({ method: "DELETE", path: `/v0/registrations/${await spareRegistration()}` }) },
  ],
  "POST /v0/registrations/{id}/graded-events": [
    {
      shape: "an answer",
      request: async () => ({
        method: "POST",
        path: `/v0/registrations/${w.registrations[1]}/graded-events`,
        body: { module_id: w.graph.atoms[0], is_correct: true, interaction_end_time: new Date().toISOString() },
      }),
    },
  ],
  "POST /v0/registrations/{id}/ungraded-events": [
    {
      shape: "an event",
      request: async () => ({
        method: "POST",
        path: `/v0/registrations/${w.registrations[2]}/ungraded-events`,
        body: { module_id: w.graph.atoms[1], interaction_end_time: new Date().toISOString() },
      }),
    },
  ],
  "POST /v0/registrations/{id}/recommendation-followed-events": [
    {
      shape: "an event",
      request: async () => ({
        method: "POST",
        path: `/v0/registrations/${w.registrations[3]}/recommendation-followed-events`,
        body: { module_id: w.graph.atoms[2], recommendation_id: 0, time_followed: new Date().toISOString() },
      }),
    },
  ],
  "POST /v0/registrations/{id}/focus-events": [
    { shape: "a goal", request: async () => ({ method: "POST", path: `/v0/registrations/${w.registrations[4]}/focus-events`, body: { goal_id: w.goals[0] } }) },
  ],
  "POST /v0/registrations/{id}/batch-events": [
    {
      shape: `${MAX_BATCH_EVENTS} graded events`,
      request: async () => ({
        method: "POST",
        path: `/v0/registrations/${w.registrations[METRICS_PAGE_MAX]}/batch-events`,
        body: {
          events: Array.from({ length: MAX_BATCH_EVENTS }, (_, i) => ({
            type: "graded-events",
            module_id: w.graph.atoms[(i * 13) % w.graph.atoms.length],
            is_correct: i % 2 === 0,
            interaction_end_time: new Date(Date.now() - 60_000 - i * 1000).toISOString(),
          })),
        },
      }),
    },
  ],
  "POST /v0/xapi/statements": [
    {
      shape: `${MAX_BATCH_EVENTS} statements naming ${MAX_BATCH_EVENTS} registrations`,
      request: async () => ({
        method: "POST",
        path: "/v0/xapi/statements",
        headers: { "X-Experience-API-Version": "1.0.3" },
        body: w.registrations.slice(0, MAX_BATCH_EVENTS).map((registration, i) => ({
          actor: { account: { homePage: "https://lms.example.edu", name: w.accounts[i]?.external_user_id } },
          verb: { id: "http://adlnet.gov/expapi/verbs/answered" },
          object: { id: w.graph.atoms[(i * 7) % w.graph.atoms.length] },
          result: { success: i % 3 !== 0, duration: "PT40S" },
          context: { registration },
          timestamp: new Date(Date.now() - 1000).toISOString(),
        })),
      }),
    },
  ],
  "PUT /v0/xapi/statements": [
    {
      shape: "a statement",
      request: async () => {
        const id = crypto.randomUUID();
        return {
          method: "PUT",
          path: `/v0/xapi/statements?statementId=${id}`,
          headers: { "X-Experience-API-Version": "1.0.3" },
          body: {
            id,
            actor: { account: { homePage: "https://lms.example.edu", name: w.accounts[5]?.external_user_id } },
            verb: { id: "http://adlnet.gov/expapi/verbs/answered" },
            object: { id: w.graph.atoms[5] },
            result: { success: true },
            context: { registration: w.registrations[5] },
          },
        };
      },
    },
  ],
  "POST /v0/graphs/validate": [
    { shape: "the 6 MiB graph", request: async () => ({ method: "POST", path: "/v0/graphs/validate", body: largestGraph("gref-largest-check") }) },
    {
      shape: "6 MiB with an error on every module (1,000 listed)",
      request: async () => ({ method: "POST", path: "/v0/graphs/validate", body: { ...largestGraph("gref-largest-bad"), learning_objectives: [] } }),
    },
  ],
  "POST /v0/graphs": [{ shape: "the 6 MiB graph", request: async () => ({ method: "POST", path: "/v0/graphs", body: largestGraph("gref-largest-2") }) }],
  "GET /v0/graphs": [{ shape: `limit=${LIST_LIMIT_MAX}`, request: async () => ({ method: "GET", path: `/v0/graphs?limit=${LIST_LIMIT_MAX}` }) }],
  "PUT /v0/graphs/{graph_id}": [
    {
      shape: "the 6 MiB graph, a new version",
      request: async () => ({ method: "PUT", path: "/v0/graphs/gref-largest-2", body: largestGraph("gref-largest-2") }),
    },
  ],
  "GET /v0/graphs/{graph_id}": [{ shape: "the 6 MiB graph with its uuids", request: async () => ({ method: "GET", path: `/v0/graphs/${w.graph.label}` }) }],
  "POST /v0/learning-instances/{id}/scoped-goals": [
    {
      shape: `${GOAL_TARGETS_MAX} targets, every prerequisite in scope`,
      request: async () => ({
        method: "POST",
        path: `/v0/learning-instances/${w.spareLi}/scoped-goals`,
        body: { name: "All", adaptive_behavior: "practice", targets: { include: w.graph.objectives }, scope: { remediation_depth: "maximum" } },
      }),
    },
  ],
  "GET /v0/learning-instances/{id}/scoped-goals": [
    { shape: `limit=${LIST_LIMIT_MAX}`, request: async () => ({ method: "GET", path: `/v0/learning-instances/${w.li}/scoped-goals?limit=${LIST_LIMIT_MAX}` }) },
  ],
  "GET /v0/learning-instances/{id}/scoped-goals/{goal_id}": [
    {
      shape: "with its resolved scope",
      request: async () => ({ method: "GET", path: `/v0/learning-instances/${w.li}/scoped-goals/${w.goals[0]}?resolved_scope=true` }),
    },
  ],
  "PUT /v0/learning-instances/{id}/scoped-goals/{goal_id}": [
    {
      shape: `${GOAL_TARGETS_MAX} targets, every prerequisite in scope`,
      request: async () => ({
        method: "PUT",
        path: `/v0/learning-instances/${w.spareLi}/scoped-goals/${await spareGoal()}`,
        body: { name: "All", adaptive_behavior: "practice", targets: { include: w.graph.objectives }, scope: { remediation_depth: "maximum" } },
      }),
    },
  ],
  "DELETE /v0/learning-instances/{id}/scoped-goals/{goal_id}": [
    { shape: "a goal", request: async () => ({ method: "DELETE", path: `/v0/learning-instances/${w.spareLi}/scoped-goals/${await spareGoal()}` }) },
  ],
  "PUT /v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations": [
    {
      shape: `${ASSIGNMENT_BATCH_MAX} registration_ids`,
      request: async () => ({
        method: "PUT",
        path: `/v0/learning-instances/${w.li}/scoped-goals/${w.goals[1]}/registrations`,
        body: { action: "assign", registration_ids: w.registrations.slice(0, ASSIGNMENT_BATCH_MAX) },
      }),
    },
    {
      shape: `registration_type (${LEARNERS} learners)`,
      request: async () => ({
        method: "PUT",
        path: `/v0/learning-instances/${w.li}/scoped-goals/${w.goals[2]}/registrations`,
        body: { action: "assign", registration_type: "learner" },
      }),
    },
  ],
  "PUT /v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}": [
    {
      shape: "one",
      request: async () => ({ method: "PUT", path: `/v0/learning-instances/${w.li}/scoped-goals/${w.goals[3]}/registrations/${w.registrations[40]}` }),
    },
  ],
  "GET /v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}": [
    {
      shape: "one",
      request: async () => ({ method: "GET", path: `/v0/learning-instances/${w.li}/scoped-goals/${w.goals[0]}/registrations/${w.registrations[0]}` }),
    },
  ],
  "DELETE /v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}": [
    {
      shape: "one",
      request: async () => ({ method: "DELETE", path: `/v0/learning-instances/${w.li}/scoped-goals/${w.goals[0]}/registrations/${w.registrations[499]}` }),
    },
  ],
  "GET /v0/registrations/{id}/recommendation": [
    {
      shape: `${GOALS} goals assigned, with justifications`,
      request: async () => ({ method: "GET", path: `/v0/registrations/${w.registrations[0]}/recommendation?goal_id=${w.goals[0]}&justifications=true` }),
    },
  ],
  "POST /v0/learning-instances/{id}/metrics/status-and-progress": [
    {
      shape: `${STATUS_PAGE_MAX} per page, ${STATUS_REQUEST_GOALS_MAX} goals`,
      request: async () => ({
        method: "POST",
        path: `/v0/learning-instances/${w.li}/metrics/status-and-progress`,
        body: { goal_ids: w.goals.slice(0, STATUS_REQUEST_GOALS_MAX), registrations_per_page: STATUS_PAGE_MAX },
      }),
    },
  ],
  "POST /v0/registrations/{id}/metrics/status-and-progress": [
    {
      shape: `${STATUS_REQUEST_GOALS_MAX} goals`,
      request: async () => ({
        method: "POST",
        path: `/v0/registrations/${w.registrations[0]}/metrics/status-and-progress`,
        body: { goal_ids: w.goals.slice(0, STATUS_REQUEST_GOALS_MAX) },
      }),
    },
  ],
  "POST /v0/learning-instances/{id}/metrics/groups": [
    {
      shape: `${GOALS} goals (the first assigned to ${LEARNERS} learners)`,
      request: async () => ({ method: "POST", path: `/v0/learning-instances/${w.li}/metrics/groups`, body: { goal_ids: w.goals } }),
    },
  ],
  "POST /v0/accounts/metrics/predicted-score": [
    {
      shape: "500 accounts, 20 groups of the same 20 objectives, 2 levels (41,000 score lists)",
      request: async () =>
        predicted(
          500,
          Array.from({ length: 20 }, (_, g) => ({ group_id: `g${g}`, learning_objectives: objectiveIds(0, 20) })),
          [10, 90],
        ),
    },
    {
      shape: "50 accounts, 20 groups of the same 200 objectives, 4 levels (44,200)",
      request: async () =>
        predicted(
          50,
          Array.from({ length: 20 }, (_, g) => ({ group_id: `g${g}`, learning_objectives: objectiveIds(0, 200) })),
          [10, 50, 75, 90],
        ),
    },
    {
      shape: "206 accounts, 20 groups of one shared objective, 11 levels (the largest answer)",
      request: async () =>
        predicted(
          206,
          Array.from({ length: 20 }, (_, g) => ({ group_id: longName(`g${g}`, 200), learning_objectives: objectiveIds(0, 1) })),
          [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
        ),
    },
  ],
};
for (const metric of ["proficiency", "expected-score", "readiness-forecast", "active-time"]) {
  CASES[`POST /v0/learning-instances/{id}/metrics/${metric}/rows`] = [
    {
      shape: `${METRICS_PAGE_MAX} learners, every column`,
      request: async () => ({ method: "POST", path: `/v0/learning-instances/${w.li}/metrics/${metric}/rows`, body: metricBody(metric, true) }),
    },
  ];
  CASES[`POST /v0/registrations/{id}/metrics/${metric}/rows`] = [
    {
      shape: "every column",
      request: async () => ({ method: "POST", path: `/v0/registrations/${w.registrations[0]}/metrics/${metric}/rows`, body: metricBody(metric, false) }),
    },
  ];
}

const measured: string[] = [];
afterAll(() => console.log(`largest allowed requests:\n${measured.join("\n")}`));

describe("every endpoint's largest allowed request: 2xx, well inside the CPU limit, at most 10 MB", () => {
  it("every operation of the document has a case", async () => {
    const doc = (await rawCall("GET", "/v0/openapi.json")).body as Json;
    const operations = Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => ["get", "post", "put", "delete", "patch"].includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(operations.filter((op) => !CASES[op])).toEqual([]);
  });

  it("learners to watch: a page of large goals looks at fewer learners, and `next` names the rest", async () => {
    const res = await api("POST", "/v0/learning-instances/{id}/metrics/groups", {
      token: await freshAdminToken(w.p),
      body: { goal_ids: w.goals },
      path: { id: w.li },
    });
    expect(res.status).toBe(200);
    expect(res.body.next!.registration_offset).toBeGreaterThan(0);
    expect(res.body.next!.registration_offset).toBeLessThan(LEARNERS);
  });

  it("readiness-forecast rows: a page of large goals holds fewer learners, `next` starts after them, and the pages together are every learner", async () => {
    const token = await freshAdminToken(w.p);
    const forecastPage = (body: Schemas["InstanceReadinessForecastRowsRequest"]) =>
      api("POST", "/v0/learning-instances/{id}/metrics/readiness-forecast/rows", { token, path: { id: w.li }, body });
    const first = await forecastPage({ goal_ids: w.goals, registrations_per_page: METRICS_PAGE_MAX });
    expect(first.status).toBe(200);
    const rows = first.body.data.length;
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBeLessThan(METRICS_PAGE_MAX);
    expect(first.body.next).toEqual({ registration_offset: rows, registrations_per_page: METRICS_PAGE_MAX });
    // the following pages go on where the first stopped: the rows of a full page of one small goal, in order
    const read: string[] = first.body.data.map((r: Json) => r.registration_id);
    let next = first.body.next;
    while (next && read.length < METRICS_PAGE_MAX) {
      const page = await forecastPage({ goal_ids: w.goals, ...next });
      expect(page.status).toBe(200);
      read.push(...page.body.data.map((r: Json) => r.registration_id));
      next = page.body.next;
    }
    // one small goal: a full page, the same learners in the same order
    const small = await forecastPage({ goal_ids: [w.goals[0]!] });
    expect(small.body.data.length).toBe(METRICS_PAGE_MAX);
    expect(read.slice(0, METRICS_PAGE_MAX)).toEqual(small.body.data.map((r: Json) => r.registration_id));
  });

  // Last, in this order: the requests whose work goes on in the background (queues, the erasure job),
  // so that the others' time is their own (a long request yields to background work: src/services/work-slice.ts),
  // then the ones that remove what the others read.
  const late = [
    "POST /v0/registrations/{id}/batch-events",
    "POST /v0/xapi/statements",
    "POST /v0/accounts/{account_id}/erasure",
    "GET /v0/erasures/{erasure_id}",
    "POST /v0/learning-instances/{id}/erasure",
    "DELETE /v0/learning-instances/{id}",
  ];
  // predicted score first: it reads the projections written while the world was seeded
  const first = ["POST /v0/accounts/metrics/predicted-score"];
  const order = [...first, ...Object.keys(CASES).filter((op) => !late.includes(op) && !first.includes(op)), ...late];
  for (const operation of order) {
    for (const c of CASES[operation] as Case[]) {
      it(`${operation}: ${c.shape}`, { timeout: 120_000 }, async () => {
        const r = await c.request();
        const headers: Record<string, string> = { Authorization: `Bearer ${await freshAdminToken(w.p)}`, ...r.headers };
        if (r.body !== undefined) headers["Content-Type"] ??= "application/json";
        const start = Date.now();
        const answer = await SELF.fetch(`${BASE}${r.path}`, {
          method: r.method,
          headers,
          body: r.raw ?? (r.body === undefined ? undefined : JSON.stringify(r.body)),
        });
        const bytes = (await answer.arrayBuffer()).byteLength;
        const ms = Date.now() - start;
        measured.push(`${operation} [${c.shape}]: ${answer.status}, ${ms} ms, ${(bytes / 1e6).toFixed(3)} MB`);
        expect(answer.status, `${operation}: ${answer.status}`).toBeLessThan(300);
        expect(bytes).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
        expect(ms).toBeLessThan(WALL_BOUND_MS);
      });
    }
  }
});
