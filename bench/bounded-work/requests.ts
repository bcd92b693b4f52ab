// The largest request each endpoint allows (docs/security.md "Limits"), against the bounded-work
// world. Each is sent `runs` times; a request that creates something creates a new one each time.
import { randomUUID } from "node:crypto";
import {
  ACCOUNTS_BATCH_MAX,
  ASSIGNMENT_BATCH_MAX,
  LIST_LIMIT_MAX,
  MAX_BATCH_EVENTS,
  METRICS_GOALS_MAX,
  METRICS_OBJECTIVES_MAX,
  METRICS_PAGE_MAX,
  STATUS_PAGE_MAX,
  STATUS_REQUEST_GOALS_MAX,
} from "../../src/schemas/limits";
import { largestGraph } from "../lib/largest-graph";
import { history } from "../throughput/seed";
import { bigGoal, type World } from "./world";

export interface LargestRequest {
  /** the endpoint, as the document names it */
  endpoint: string;
  /** what makes this request the largest allowed */
  shape: string;
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** path and body of run `run` (0, 1, ...) */
  build: (run: number) => { path: string; body?: unknown };
  headers?: Record<string, string>;
  /** only once (the request removes what it measures) */
  once?: boolean;
}

/** Predicted-score bodies at the corners of its limits (docs/security.md "Limits"). */
export function predictedScoreShapes(w: World): { shape: string; body: unknown }[] {
  const accounts = w.accounts.slice(0, Math.min(500, w.withHistory));
  const objectives = w.graph.objectives;
  const body = (a: number, groups: { group_id: string; learning_objectives: { learning_objective_id: string; weight?: number }[] }[], levels: number[]) => ({
    account_ids: accounts.slice(0, a),
    graph_ids: [w.graph.label],
    grouped_learning_objectives: groups,
    confidence_levels: levels,
    get_overall_score: true,
    get_learning_objective_scores: true,
  });
  const ids = (from: number, n: number) => objectives.slice(from, from + n).map((id) => ({ learning_objective_id: id }));
  const scores = (a: number, g: number, o: number, l: number) => `${a} × (${g} + ${o} + 1) × ${l} = ${(a * (g + o + 1) * l).toLocaleString("en-US")}`;
  return [
    {
      shape: `500 accounts, 20 groups each of the same 20 objectives, 2 levels: ${scores(500, 20, 20, 2)} score lists`,
      body: body(
        500,
        Array.from({ length: 20 }, (_, g) => ({ group_id: `g${g}`, learning_objectives: ids(0, 20) })),
        [10, 90],
      ),
    },
    {
      shape: `50 accounts, 20 groups each of the same 200 objectives, 4 levels: ${scores(50, 20, 200, 4)}`,
      body: body(
        50,
        Array.from({ length: 20 }, (_, g) => ({ group_id: `g${g}`, learning_objectives: ids(0, 200) })),
        [10, 50, 75, 90],
      ),
    },
    {
      shape: `500 accounts, 4 groups of 5 objectives with weights 1..5 (exact small groups), 4 levels: ${scores(500, 4, 20, 4)}`,
      body: body(
        500,
        Array.from({ length: 4 }, (_, g) => ({
          group_id: `g${g}`,
          learning_objectives: ids(5 * g, 5).map((o, k) => ({ ...o, weight: k + 1 })),
        })),
        [10, 25, 50, 90],
      ),
    },
    {
      shape: `206 accounts, 20 groups of one shared objective, 11 levels (the largest answer): ${scores(206, 20, 1, 11)}`,
      body: body(
        206,
        Array.from({ length: 20 }, (_, g) => ({ group_id: `group-${g}`, learning_objectives: ids(0, 1) })),
        [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
      ),
    },
  ];
}

export function largestRequests(w: World): LargestRequest[] {
  const li = w.instanceId;
  const goal = w.goals[0] as string;
  const reg = w.registrations[0] as string;
  const day = (offset: number) => new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);
  const metricBody = (metric: string) =>
    metric === "active-time"
      ? { start_date: day(7), end_date: day(1), registrations_per_page: METRICS_PAGE_MAX }
      : metric === "readiness-forecast"
        ? { goal_ids: w.goals.slice(0, METRICS_GOALS_MAX), registrations_per_page: METRICS_PAGE_MAX }
        : {
            goal_ids: w.goals.slice(0, METRICS_GOALS_MAX),
            ...(metric === "proficiency" ? { learning_objective_ids: w.graph.objectives.slice(0, METRICS_OBJECTIVES_MAX) } : {}),
            registrations_per_page: METRICS_PAGE_MAX,
          };
  const statements = (run: number) =>
    w.registrations.slice(0, MAX_BATCH_EVENTS).map((registration, i) => ({
      id: randomUUID(),
      actor: { account: { homePage: "https://lms.example.edu", name: w.externalIds[i] } },
      verb: { id: "http://adlnet.gov/expapi/verbs/answered" },
      object: { id: w.graph.assessing[(run * 7 + i) % w.graph.assessing.length] },
      result: { success: i % 3 !== 0, duration: "PT40S" },
      context: { registration },
      timestamp: new Date(Date.now() - 1000).toISOString(),
    }));
  const list: LargestRequest[] = [
    {
      endpoint: "POST /v0/graphs/validate",
      shape: "20,000 modules, 2,000 objectives, 6 MiB",
      method: "POST",
      build: () => ({ path: "/v0/graphs/validate", body: w.doc }),
    },
    {
      endpoint: "POST /v0/graphs/validate",
      shape: "6 MiB, every module aligned to a missing objective (listed: 1,000)",
      method: "POST",
      build: () => ({ path: "/v0/graphs/validate", body: { ...w.doc, learning_objectives: [] } }),
    },
    {
      endpoint: "POST /v0/graphs",
      shape: "20,000 modules, 2,000 objectives, 6 MiB",
      method: "POST",
      build: (run) => ({ path: "/v0/graphs", body: largestGraph(`gref-bounded-post-${run}`) }),
    },
    {
      endpoint: "PUT /v0/graphs/{graph_id}",
      shape: "the same 6 MiB document (a new version)",
      method: "PUT",
      build: () => ({ path: `/v0/graphs/${w.graph.label}`, body: w.doc }),
    },
    { endpoint: "GET /v0/graphs/{graph_id}", shape: "the 6 MiB graph with its uuids", method: "GET", build: () => ({ path: `/v0/graphs/${w.graph.label}` }) },
    { endpoint: "GET /v0/graphs", shape: `limit=${LIST_LIMIT_MAX}`, method: "GET", build: () => ({ path: `/v0/graphs?limit=${LIST_LIMIT_MAX}` }) },
    {
      endpoint: "GET /v0/learning-instances",
      shape: `limit=${LIST_LIMIT_MAX}`,
      method: "GET",
      build: () => ({ path: `/v0/learning-instances?limit=${LIST_LIMIT_MAX}` }),
    },
    {
      endpoint: "GET /v0/learning-instances/{li_id}/registrations",
      shape: `limit=${LIST_LIMIT_MAX}`,
      method: "GET",
      build: () => ({ path: `/v0/learning-instances/${li}/registrations?limit=${LIST_LIMIT_MAX}` }),
    },
    {
      endpoint: "POST /v0/batch",
      shape: `${ACCOUNTS_BATCH_MAX} accounts`,
      method: "POST",
      build: (run) => ({
        path: "/v0/batch",
        body: {
          requests: Array.from({ length: ACCOUNTS_BATCH_MAX }, (_, i) => ({
            method: "post",
            relative_url: "/accounts",
            body: { external_user_id: `bounded-batch-${run}-${i}` },
          })),
        },
      }),
    },
    {
      endpoint: "POST /v0/learning-instances/{id}/scoped-goals",
      shape: "2,000 objective targets, remediation maximum, on the 2,000-objective graph",
      method: "POST",
      build: (run) => ({ path: `/v0/learning-instances/${li}/scoped-goals`, body: bigGoal(`Measured goal ${run}`, w.graph.objectives) }),
    },
    {
      endpoint: "GET /v0/learning-instances/{id}/scoped-goals",
      shape: `limit=${LIST_LIMIT_MAX} (${w.goals.length}+ goals of 2,000 targets)`,
      method: "GET",
      build: () => ({ path: `/v0/learning-instances/${li}/scoped-goals?limit=${LIST_LIMIT_MAX}` }),
    },
    {
      endpoint: "PUT /v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations",
      shape: `registration_type learner (${w.registrations.length.toLocaleString("en-US")} learners)`,
      method: "PUT",
      build: () => ({ path: `/v0/learning-instances/${li}/scoped-goals/${goal}/registrations`, body: { action: "assign", registration_type: "learner" } }),
    },
    {
      endpoint: "PUT /v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations",
      shape: `${ASSIGNMENT_BATCH_MAX} registration_ids`,
      method: "PUT",
      build: () => ({
        path: `/v0/learning-instances/${li}/scoped-goals/${goal}/registrations`,
        body: { action: "assign", registration_ids: w.registrations.slice(0, ASSIGNMENT_BATCH_MAX) },
      }),
    },
    {
      endpoint: "POST /v0/registrations/{id}/batch-events",
      shape: `${MAX_BATCH_EVENTS} graded events`,
      method: "POST",
      build: (run) => ({
        path: `/v0/registrations/${w.registrations[w.withHistory + run] ?? reg}/batch-events`,
        body: { events: history(w.graph, MAX_BATCH_EVENTS, Date.now() - 60_000, 99 + run) },
      }),
    },
    {
      endpoint: "POST /v0/xapi/statements",
      shape: `${MAX_BATCH_EVENTS} statements naming ${MAX_BATCH_EVENTS} registrations`,
      method: "POST",
      build: (run) => ({ path: "/v0/xapi/statements", body: statements(run) }),
      headers: { "X-Experience-API-Version": "1.0.3" },
    },
    {
      endpoint: "GET /v0/registrations/{id}/recommendation",
      shape: "40 goals of 2,000 targets assigned",
      method: "GET",
      build: () => ({ path: `/v0/registrations/${reg}/recommendation?goal_id=${goal}&justifications=true` }),
    },
    {
      endpoint: "POST /v0/registrations/{id}/metrics/status-and-progress",
      shape: `${STATUS_REQUEST_GOALS_MAX} goals of 2,000 targets`,
      method: "POST",
      build: () => ({ path: `/v0/registrations/${reg}/metrics/status-and-progress`, body: { goal_ids: w.goals.slice(0, STATUS_REQUEST_GOALS_MAX) } }),
    },
    {
      endpoint: "POST /v0/learning-instances/{id}/metrics/status-and-progress",
      shape: `${STATUS_PAGE_MAX} per page, ${STATUS_REQUEST_GOALS_MAX} goals of 2,000 targets`,
      method: "POST",
      build: () => ({
        path: `/v0/learning-instances/${li}/metrics/status-and-progress`,
        body: { goal_ids: w.goals.slice(0, STATUS_REQUEST_GOALS_MAX), registrations_per_page: STATUS_PAGE_MAX },
      }),
    },
  ];
  for (const metric of ["proficiency", "expected-score", "readiness-forecast", "active-time"]) {
    const shape =
      metric === "active-time"
        ? `${METRICS_PAGE_MAX} learners × 7 days`
        : metric === "readiness-forecast"
          ? `${METRICS_PAGE_MAX} learners asked × ${METRICS_GOALS_MAX} goals of 2,000 targets: one page (4 learners for goals this large)`
          : `${METRICS_PAGE_MAX} learners × ${METRICS_GOALS_MAX} goals of 2,000 targets${metric === "proficiency" ? ` + ${METRICS_OBJECTIVES_MAX} objectives` : ""}`;
    list.push({
      endpoint: `POST /v0/learning-instances/{id}/metrics/${metric}/rows`,
      shape,
      method: "POST",
      build: () => ({ path: `/v0/learning-instances/${li}/metrics/${metric}/rows`, body: metricBody(metric) }),
    });
    const { registrations_per_page: _page, ...one } = metricBody(metric) as Record<string, unknown>;
    list.push({
      endpoint: `POST /v0/registrations/{id}/metrics/${metric}/rows`,
      shape: metric === "readiness-forecast" ? `${METRICS_GOALS_MAX} goals of 2,000 targets` : shape.replace(`${METRICS_PAGE_MAX} learners × `, ""),
      method: "POST",
      build: () => ({ path: `/v0/registrations/${reg}/metrics/${metric}/rows`, body: one }),
    });
  }
  list.push({
    endpoint: "POST /v0/learning-instances/{id}/metrics/groups",
    shape: `${Math.min(w.goals.length, 50)} goals of 2,000 targets: one page`,
    method: "POST",
    build: () => ({ path: `/v0/learning-instances/${li}/metrics/groups`, body: { goal_ids: w.goals.slice(0, 50) } }),
  });
  list.push({
    endpoint: "POST /v0/learning-instances/{id}/metrics/groups",
    shape: `1 goal of 2,000 targets assigned to ${w.registrations.length.toLocaleString("en-US")} learners: one page (500 learners at most, fewer for large goals)`,
    method: "POST",
    build: () => ({ path: `/v0/learning-instances/${li}/metrics/groups`, body: { goal_ids: [goal] } }),
  });
  for (const { shape, body } of predictedScoreShapes(w)) {
    list.push({
      endpoint: "POST /v0/accounts/metrics/predicted-score",
      shape,
      method: "POST",
      build: () => ({ path: "/v0/accounts/metrics/predicted-score", body }),
    });
  }
  const learner = w.accounts[0] as string;
  for (const format of ["json", "xapi"]) {
    list.push({
      endpoint: "GET /v0/accounts/{account_id}/export",
      shape: `a learner with ${w.withHistory ? "events" : "no events"} and ${w.goals.length} goals of 2,000 targets (${format}, streamed)`,
      method: "GET",
      build: () => ({ path: `/v0/accounts/${learner}/export?format=${format}` }),
    });
  }
  list.push({
    endpoint: "GET /v0/data-requests",
    shape: `limit=${LIST_LIMIT_MAX}`,
    method: "GET",
    build: () => ({ path: `/v0/data-requests?limit=${LIST_LIMIT_MAX}` }),
  });
  list.push({
    endpoint: "POST /v0/accounts/{account_id}/erasure",
    shape: `a learner with events and ${w.goals.length} goals (the job: deferred)`,
    method: "POST",
    build: () => ({ path: `/v0/accounts/${w.accounts[Math.max(0, w.withHistory - 1)]}/erasure` }),
    once: true,
  });
  list.push({
    endpoint: "DELETE /v0/learning-instances/{id}",
    shape: `${w.registrations.length.toLocaleString("en-US")} registrations, ${w.goals.length}+ goals`,
    method: "DELETE",
    build: () => ({ path: `/v0/learning-instances/${li}` }),
    once: true,
  });
  list.push({
    endpoint: "POST /v0/learning-instances/{id}/erasure",
    shape: `the deleted instance: ${w.registrations.length.toLocaleString("en-US")} registrations (the job: deferred)`,
    method: "POST",
    build: () => ({ path: `/v0/learning-instances/${li}/erasure` }),
    once: true,
  });
  return list;
}
