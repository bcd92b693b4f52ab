import type { Context } from "hono";
import type { AppEnv } from "../http/app-env";
import { authorizedInstance, authorizedRegistration } from "../http/authorize";
import { apiRoute } from "../http/define-route";
import { createRouter } from "../http/router";
import { json, jsonBody, unknownGoalRefused, uuidParams } from "../schemas/common";
import { METRIC_BODIES, METRIC_VALUES, type MetricName, metricTable, WatchBody, WatchResponse } from "../schemas/metrics";
import { nextPage } from "../services/goal-specs";
import { learnersToWatch } from "../services/learners-to-watch";
import { instanceMetrics, type MetricsBody, registrationMetrics } from "../services/metrics";

const SUMMARIES: Record<MetricName, string> = {
  proficiency: "Proficiency per objective (or per goal: its targets) with a 95% credible interval and the evidence it rests on",
  "expected-score": "Expected score on each goal's targets with a 95% interval (insufficient_data when the model has too little)",
  "readiness-forecast": "Probability of meeting each goal's completion criteria by its deadline at the learner's pace, and the projected date",
  "active-time": "Active time and time spent per calendar day (at most 7 days; idle gaps capped; docs/analytics.md)",
};

function instanceRoute<M extends MetricName>(metric: M) {
  return apiRoute({
    method: "post",
    path: `/v0/learning-instances/{id}/metrics/${metric}/rows` as const,
    tags: ["Analytics"],
    summary: `${SUMMARIES[metric]}: a page of the instance's learners`,
    request: { params: uuidParams("id"), body: jsonBody(METRIC_BODIES[metric].instance) },
    responses: { 200: json(metricTable(METRIC_VALUES[metric], true), "One row per learner registration, at most 30 a page"), 422: unknownGoalRefused },
  });
}

function registrationRoute<M extends MetricName>(metric: M) {
  return apiRoute({
    method: "post",
    path: `/v0/registrations/{id}/metrics/${metric}/rows` as const,
    tags: ["Analytics"],
    summary: `${SUMMARIES[metric]}: one registration`,
    request: { params: uuidParams("id"), body: jsonBody(METRIC_BODIES[metric].registration) },
    responses: { 200: json(metricTable(METRIC_VALUES[metric], false), "One row"), 422: unknownGoalRefused },
  });
}

const groupsRoute = apiRoute({
  method: "post",
  path: "/v0/learning-instances/{id}/metrics/groups",
  tags: ["Analytics"],
  summary: "Learners to watch: stuck, struggling, inactive, not started, behind schedule, per goal, with a reason",
  request: { params: uuidParams("id"), body: jsonBody(WatchBody) },
  responses: { 200: json(WatchResponse, "The non-empty groups, per goal in request order"), 422: unknownGoalRefused },
});

type Paged = MetricsBody & { registration_offset: number; registrations_per_page: number };

const instanceHandler = (metric: MetricName) => async (c: Context<AppEnv>, id: string, query: Paged) => {
  const { li, graph } = await authorizedInstance(c, id);
  const t = await instanceMetrics(c.env, c.get("db"), li.id, graph, metric, query, query.registration_offset, query.registrations_per_page);
  return { query, column_headers: t.headers, data: t.rows, ...nextPage(query, t.rows.length, t.more) };
};

const registrationHandler = (metric: MetricName) => async (c: Context<AppEnv>, id: string, query: MetricsBody) => {
  const context = await authorizedRegistration(c, id);
  const t = await registrationMetrics(c.env, c.get("db"), context.registration, { uuid: context.graphUuid, version: context.graphVersion }, metric, query);
  return { query, column_headers: t.headers, data: t.rows };
};

// Written out per metric (not in a loop) so the app's type, and the typed client, carry every route.
export const metricsRouter = createRouter()
  .openapi(instanceRoute("proficiency"), async (c) => c.json(await instanceHandler("proficiency")(c, c.req.valid("param").id, c.req.valid("json")), 200))
  .openapi(instanceRoute("expected-score"), async (c) => c.json(await instanceHandler("expected-score")(c, c.req.valid("param").id, c.req.valid("json")), 200))
  .openapi(instanceRoute("readiness-forecast"), async (c) =>
    c.json(await instanceHandler("readiness-forecast")(c, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(instanceRoute("active-time"), async (c) => c.json(await instanceHandler("active-time")(c, c.req.valid("param").id, c.req.valid("json")), 200))
  .openapi(registrationRoute("proficiency"), async (c) =>
    c.json(await registrationHandler("proficiency")(c, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(registrationRoute("expected-score"), async (c) =>
    c.json(await registrationHandler("expected-score")(c, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(registrationRoute("readiness-forecast"), async (c) =>
    c.json(await registrationHandler("readiness-forecast")(c, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(registrationRoute("active-time"), async (c) =>
    c.json(await registrationHandler("active-time")(c, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(groupsRoute, async (c) => {
    const { li, graph } = await authorizedInstance(c, c.req.valid("param").id);
    return c.json(await learnersToWatch(c.env, c.get("db"), li.id, graph, c.req.valid("json").goal_ids), 200);
  });
