import { dayLabel, localDay, MAX_ACTIVE_TIME_DAYS } from "../analytics";
import type { Db } from "../db/client";
import type { GoalRow } from "../db/schema";
import type { Env } from "../env";
import { badRequest, unprocessable } from "../errors";
import type { GraphRef, MetricGoal, MetricsRequest, MetricValue } from "../objects/registration/rpc";
import { loadRuntimeGraph } from "../reads/graph-versions";
import type { ErrorDetail } from "../schemas/common";
import type { MetricName } from "../schemas/metrics";
import { assignmentsOf, learnerPage, learnersWithinWork, metricGoalOf, requestedGoals } from "./goal-specs";
import { registrationObject } from "./registrations";

/** A metrics request body after validation (the fields of every metric; each metric uses its own). */
export interface MetricsBody {
  goal_ids?: string[];
  learning_objective_ids?: string[];
  start_date?: string;
  end_date?: string;
  utc_offset_minutes?: number;
}

export interface MetricsRow {
  registration_id: string;
  values: MetricValue[];
}

/** The columns of a metrics table and the request each row's Durable Object answers. */
interface Columns {
  headers: string[];
  goals: GoalRow[];
  /** per registration: the object's request, given the registration's goal assignments */
  requestFor(assigned: Map<string, number> | undefined): MetricsRequest;
}

const DAY_MS = 86_400_000;

/** Calendar day number of a date (`2027-01-04`: that day) or a date-time (its day in the requested offset). */
function dayOf(value: string, utcOffsetMinutes: number): number {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? Math.floor(Date.parse(`${value}T00:00:00Z`) / DAY_MS) : localDay(Date.parse(value), utcOffsetMinutes);
}

async function columnsOf(db: Db, liId: string, graph: GraphRef, metric: MetricName, body: MetricsBody, nowMs: number): Promise<Columns> {
  const goals = body.goal_ids ? await requestedGoals(db, liId, body.goal_ids) : [];
  if (metric === "active-time") {
    const offset = body.utc_offset_minutes ?? 0;
    const firstDay = dayOf(body.start_date as string, offset);
    const lastDay = dayOf(body.end_date as string, offset);
    if (lastDay < firstDay) throw badRequest("end_date is before start_date.", [{ path: "body.end_date", message: "before start_date" }]);
    if (lastDay - firstDay + 1 > MAX_ACTIVE_TIME_DAYS) {
      throw badRequest(`At most ${MAX_ACTIVE_TIME_DAYS} days per request.`, [
        { path: "body.end_date", message: `more than ${MAX_ACTIVE_TIME_DAYS} days after start_date` },
      ]);
    }
    const headers: string[] = [];
    for (let d = firstDay; d <= lastDay; d++) headers.push(dayLabel(d));
    return { headers, goals, requestFor: () => ({ metric, firstDay, lastDay, utcOffsetMinutes: offset }) };
  }
  const objectiveIds = metric === "proficiency" ? [...new Set(body.learning_objective_ids ?? [])] : [];
  if (objectiveIds.length) await checkObjectives(db, graph, body.learning_objective_ids ?? []);
  const metricGoals = (assigned: Map<string, number> | undefined): MetricGoal[] => goals.map((g) => metricGoalOf(g, graph, assigned?.get(g.id) ?? null));
  return {
    headers: [...goals.map((g) => g.id), ...objectiveIds],
    goals,
    requestFor: (assigned) =>
      metric === "proficiency" ? { metric, graph, goals: metricGoals(assigned), objectiveIds, nowMs } : { metric, graph, goals: metricGoals(assigned), nowMs },
  };
}

/** Objective ids the graph does not have are refused (422 naming them), as predicted score refuses them. */
async function checkObjectives(db: Db, graph: GraphRef, ids: string[]): Promise<void> {
  const index = await loadRuntimeGraph(db, graph.uuid, graph.version);
  const unknown: ErrorDetail[] = [];
  ids.forEach((id, i) => {
    if (!index?.objectiveByLabel.has(id)) unknown.push({ path: `body.learning_objective_ids[${i}]`, message: `'${id}' is not an objective of the graph` });
  });
  if (unknown.length) throw unprocessable("Unknown learning objective id(s); see details.", unknown);
}

async function rows(env: Env, db: Db, registrationIds: string[], columns: Columns): Promise<MetricsRow[]> {
  const assigned = await assignmentsOf(
    db,
    registrationIds,
    columns.goals.map((g) => g.id),
  );
  return Promise.all(
    registrationIds.map(async (id) => ({
      registration_id: id,
      values: await registrationObject(env, id).metricsRow(columns.requestFor(assigned.get(id))),
    })),
  );
}

/**
 * POST /v0/learning-instances/{id}/metrics/{metric}/rows: one page of learner registrations (those
 * with one of the goals assigned, or every learner when the request names no goal), each row
 * computed by the registration's Durable Object (the page's objects in parallel). A readiness
 * forecast judges each goal's status (its work remaining), as learners to watch do: its page holds
 * fewer rows when the goals are large (src/schemas/limits.ts ANALYSIS_PAGE_WORK; `next` follows).
 */
export async function instanceMetrics(env: Env, db: Db, liId: string, graph: GraphRef, metric: MetricName, body: MetricsBody, offset: number, perPage: number) {
  const nowMs = Date.now();
  const columns = await columnsOf(db, liId, graph, metric, body, nowMs);
  const page = await learnerPage(
    db,
    liId,
    columns.goals.map((g) => g.id),
    offset,
    metric === "readiness-forecast" ? learnersWithinWork(columns.goals, perPage) : perPage,
  );
  return { headers: columns.headers, rows: await rows(env, db, page.ids, columns), more: page.more };
}

/** POST /v0/registrations/{id}/metrics/{metric}/rows: the one row. */
export async function registrationMetrics(
  env: Env,
  db: Db,
  registration: { id: string; learningInstanceId: string },
  graph: GraphRef,
  metric: MetricName,
  body: MetricsBody,
) {
  const columns = await columnsOf(db, registration.learningInstanceId, graph, metric, body, Date.now());
  return { headers: columns.headers, rows: await rows(env, db, [registration.id], columns) };
}
