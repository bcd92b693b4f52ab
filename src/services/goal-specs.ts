import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { creationOrder } from "../db/creation-order";
import { preparedPerDb } from "../db/prepared";
import { type GoalRow, goalAssignments, goals, registrations } from "../db/schema";
import { unprocessable } from "../errors";
import type { GoalSpec, GraphRef, MetricGoal } from "../objects/registration/rpc";
import type { ErrorDetail } from "../schemas/common";
import { ANALYSIS_GOAL_WORK, ANALYSIS_LEARNER_WORK, ANALYSIS_PAGE_WORK } from "../schemas/limits";
import { goalDeadline } from "./goals";

/** A goal as its registrations' Durable Objects need it, at the graph version the caller read. */
export function goalSpecOf(goal: GoalRow, graphUuid: string, graphVersion: number): GoalSpec {
  return { id: goal.id, version: goal.updatedAt, body: goal.body, graphUuid, graphVersion };
}

/** A goal as a metrics request carries it: its spec with when it was assigned to the learner (null: not assigned), and the deadline that gives. */
export function metricGoalOf(goal: GoalRow, graph: GraphRef, assignedAt: number | null): MetricGoal {
  const spec = goalSpecOf(goal, graph.uuid, graph.version);
  if (assignedAt === null) return { spec, deadlineMs: null };
  const deadline = goalDeadline(goal.body, assignedAt);
  return { spec: { ...spec, assignedAt }, deadlineMs: deadline ? deadline.getTime() : null };
}

/**
 * The live goals of learning instance `liId` named in a request body, in request order (duplicates
 * kept once); an id that names no such goal is a 422 naming its path (`body.goal_ids[i]`).
 */
export async function requestedGoals(db: Db, liId: string, goalIds: string[]): Promise<GoalRow[]> {
  const ids = [...new Set(goalIds.map((id) => id.toLowerCase()))];
  const rows = await db
    .select()
    .from(goals)
    .where(and(sql`${goals.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`, eq(goals.learningInstanceId, liId), isNull(goals.deletedAt)))
    .all();
  const byId = new Map(rows.map((g) => [g.id, g]));
  const details: ErrorDetail[] = [];
  goalIds.forEach((id, i) => {
    if (!byId.has(id.toLowerCase())) details.push({ path: `body.goal_ids[${i}]`, message: `'${id}' is not a scoped goal of the learning instance` });
  });
  if (details.length) throw unprocessable("Unknown goal id(s): goal_ids must name scoped goals of the learning instance.", details);
  return ids.map((id) => byId.get(id) as GoalRow);
}

/** Which of the goals each registration has assigned, and when: registration id -> goal id -> assigned_at (ms). */
export async function assignmentsOf(db: Db, registrationIds: string[], goalIds: string[]): Promise<Map<string, Map<string, number>>> {
  const out = new Map<string, Map<string, number>>();
  if (!registrationIds.length || !goalIds.length) return out;
  const rows = await db
    .select({ goalId: goalAssignments.goalId, registrationId: goalAssignments.registrationId, assignedAt: goalAssignments.assignedAt })
    .from(goalAssignments)
    .where(
      and(
        sql`${goalAssignments.registrationId} IN (SELECT value FROM json_each(${JSON.stringify(registrationIds)}))`,
        sql`${goalAssignments.goalId} IN (SELECT value FROM json_each(${JSON.stringify(goalIds)}))`,
      ),
    )
    .all();
  for (const r of rows) {
    let goals = out.get(r.registrationId);
    if (!goals) {
      goals = new Map();
      out.set(r.registrationId, goals);
    }
    goals.set(r.goalId, r.assignedAt);
  }
  return out;
}

/** The work of judging one learner on every one of these goals (src/schemas/limits.ts: grows with the goals' scopes). */
export function analysisWork(goals: readonly Pick<GoalRow, "scopeObjectives">[]): number {
  return goals.reduce((work, g) => work + ANALYSIS_GOAL_WORK + g.scopeObjectives.length, ANALYSIS_LEARNER_WORK);
}

/** Learners a page that judges each on every goal may hold: at most `perPage`, fewer for large goals, at least one. */
export function learnersWithinWork(goals: readonly Pick<GoalRow, "scopeObjectives">[], perPage: number): number {
  return Math.max(1, Math.min(perPage, Math.floor(ANALYSIS_PAGE_WORK / analysisWork(goals))));
}

/** The `next` member of a paged instance table: the page after this one, when there is one. */
export function nextPage(query: { registration_offset: number; registrations_per_page: number }, rows: number, more: boolean) {
  return more ? { next: { registration_offset: query.registration_offset + rows, registrations_per_page: query.registrations_per_page } } : {};
}

/**
 * The query of `learnerPage`, with and without the goal filter (prepared once: a class page polled
 * every few seconds built its SQL each time).
 */
function learnerPageQuery(db: Db, byGoals: boolean) {
  const filters = [eq(registrations.learningInstanceId, sql.placeholder("liId")), eq(registrations.type, "learner"), isNull(registrations.deletedAt)];
  if (byGoals) {
    filters.push(
      sql`EXISTS (SELECT 1 FROM ${goalAssignments} WHERE ${goalAssignments.registrationId} = ${registrations.id} AND ${goalAssignments.goalId} IN (SELECT value FROM json_each(${sql.placeholder("goalIds")})))`,
    );
  }
  return db
    .select({ id: registrations.id })
    .from(registrations)
    .where(and(...filters))
    .orderBy(...creationOrder(registrations))
    .limit(sql.placeholder("limit"))
    .offset(sql.placeholder("offset"))
    .prepare();
}

const allLearnersQuery = preparedPerDb((db) => learnerPageQuery(db, false));
const learnersByGoalsQuery = preparedPerDb((db) => learnerPageQuery(db, true));

/**
 * One page of an instance table's rows (docs/api-conventions.md "Lists, tables and metrics bodies"): the live learner
 * registrations, in creation order, that have at least one of `goalIds` assigned (every learner when
 * no goals are given). Asks for one row more than the page to tell whether another page follows.
 */
export async function learnerPage(
  db: Db,
  liId: string,
  goalIds: string[] | undefined,
  offset: number,
  perPage: number,
): Promise<{ ids: string[]; more: boolean }> {
  const params = { liId, limit: perPage + 1, offset };
  const rows = goalIds?.length ? await learnersByGoalsQuery(db).all({ ...params, goalIds: JSON.stringify(goalIds) }) : await allLearnersQuery(db).all(params);
  return { ids: rows.slice(0, perPage).map((r) => r.id), more: rows.length > perPage };
}
