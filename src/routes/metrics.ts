import type { Context } from "hono";
import type { AppEnv } from "../http/app-env";
import { apiRoute } from "../http/define-route";
import { createRouter } from "../http/router";
import { json, jsonBody, unknownGoalRefused, uuidParams } from "../schemas/common";
import { METRIC_BODIES, METRIC_VALUES, type MetricName, metricTable, WatchBody, WatchResponse } from "../schemas/metrics";
import { nextPage } from "../services/goal-specs";
import { learnersToWatch } from "../services/learners-to-watch";
import { instanceMetrics, type MetricsBody, registrationMetrics } from "../services/metrics";
import { authorizedInstance, authorizedRegistration } from "./authorize";

/** Per metric: the operationId stem, the summary's noun and the description (docs/analytics.md). */
const METRIC_DOCS: Record<MetricName, { name: string; title: string; description: string; page?: string }> = {
  proficiency: {
    name: "Proficiency",
    title: "proficiency",
    description: "Proficiency per learning objective (or per goal: its targets) with a 95% credible interval and the evidence it rests on.",
  },
  "expected-score": {
    name: "ExpectedScore",
    title: "expected score",
    description: "Expected score on each goal's targets with a 95% interval; `insufficient_data` when the model has too little evidence.",
  },
  "readiness-forecast": {
    name: "ReadinessForecast",
    title: "readiness forecast",
    description: "Probability of meeting each goal's completion criteria by its deadline at the learner's pace, and the projected completion date.",
    page: ", fewer when the goals are large: each learner is judged on every goal's status, 40 goals of 2,000 objectives give 4 a page",
  },
  "active-time": {
    name: "ActiveTime",
    title: "active time",
    description: "Active time and time spent per calendar day (at most 7 days; idle gaps capped; docs/analytics.md).",
  },
};

function instanceRoute<M extends MetricName>(metric: M) {
  return apiRoute({
    method: "post",
    path: `/v0/learning-instances/{id}/metrics/${metric}/rows` as const,
    operationId: `getLearningInstance${METRIC_DOCS[metric].name}`,
    tags: ["Analytics"],
    summary: `Get ${METRIC_DOCS[metric].title} rows of a learning instance`,
    description: `${METRIC_DOCS[metric].description} One row per learner registration, a page at a time (at most 30 a page${METRIC_DOCS[metric].page ?? ""}; \`next\` says where the next page starts).`,
    request: { params: uuidParams("id"), body: jsonBody(METRIC_BODIES[metric].instance) },
    responses: {
      200: json(
        metricTable(METRIC_VALUES[metric], true),
        `One row per learner registration, at most 30 a page${METRIC_DOCS[metric].page ? " (fewer for large goals)" : ""}`,
      ),
      422: unknownGoalRefused,
    },
  });
}

function registrationRoute<M extends MetricName>(metric: M) {
  return apiRoute({
    method: "post",
    path: `/v0/registrations/{id}/metrics/${metric}/rows` as const,
    operationId: `getRegistration${METRIC_DOCS[metric].name}`,
    tags: ["Analytics"],
    summary: `Get the ${METRIC_DOCS[metric].title} row of a registration`,
    description: `${METRIC_DOCS[metric].description} The row of one registration.`,
    request: { params: uuidParams("id"), body: jsonBody(METRIC_BODIES[metric].registration) },
    responses: { 200: json(metricTable(METRIC_VALUES[metric], false), "One row"), 422: unknownGoalRefused },
  });
}

const groupsRoute = apiRoute({
  method: "post",
  path: "/v0/learning-instances/{id}/metrics/groups",
  tags: ["Analytics"],
  operationId: "listLearnersToWatch",
  summary: "List the learners to watch",
  description:
    "Per requested goal, the instance's learners who are stuck, struggling, inactive, not started or behind schedule, each with the reason (docs/analytics.md); only the non-empty groups, goals in request order. Paged by learners like the other instance tables: at most `registrations_per_page` learners (500) per page, fewer when the goals are large; `next` names the following page.",
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
    return c.json(await learnersToWatch(c.env, c.get("db"), li.id, graph, c.req.valid("json")), 200);
  });
