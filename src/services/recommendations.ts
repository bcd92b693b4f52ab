import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { preparedPerDb } from "../db/prepared";
import { type GoalRow, goalAssignments, goals, graphs, learningInstances, registrations } from "../db/schema";
import type { Env } from "../env";
import { notFound } from "../errors";
import type { RecommendationView } from "../schemas/recommendations";
import { goalSpecOf } from "./goal-specs";
import { CONTEXT_COLUMNS, CONTEXT_JOINS, contextOf, type RegistrationContext, registrationObject } from "./registrations";

export interface RecommendationFlags {
  continuedRecommendations: boolean;
  justifications: boolean;
}

/** What a recommendation request reads from D1: the registration's context, the goal asked for and its assignment. */
export interface RecommendationTarget {
  context: RegistrationContext;
  /** the goal if it is a live goal of the registration's learning instance */
  goal: GoalRow | null;
  /** when it was assigned to the registration (null: not assigned) */
  assignedAt: number | null;
}

/**
 * The registration's context (read as `registrationContext` reads it), the goal and its assignment
 * in one query, prepared once: one D1 round trip per recommendation instead of two.
 */
const targetQueryOf = preparedPerDb((db) =>
  db
    .select({ ...CONTEXT_COLUMNS, goal: goals, assignedAt: goalAssignments.assignedAt })
    .from(registrations)
    .innerJoin(learningInstances, CONTEXT_JOINS.instance)
    .leftJoin(graphs, CONTEXT_JOINS.graph)
    .leftJoin(goals, and(eq(goals.id, sql.placeholder("goalId")), eq(goals.learningInstanceId, registrations.learningInstanceId), isNull(goals.deletedAt)))
    .leftJoin(goalAssignments, and(eq(goalAssignments.goalId, goals.id), eq(goalAssignments.registrationId, registrations.id)))
    .where(CONTEXT_JOINS.live)
    .prepare(),
);

/** Registration `registrationId` with its graph (404 / 422 as `registrationContext`), and goal `goalId` with its assignment to it. */
export async function recommendationTarget(db: Db, registrationId: string, goalId: string): Promise<RecommendationTarget> {
  const row = await targetQueryOf(db).get({ id: registrationId, goalId });
  return { context: contextOf(row), goal: row?.goal ?? null, assignedAt: row?.assignedAt ?? null };
}

/**
 * GET /v0/registrations/{id}/recommendation, once the caller is authorized on the registration: the
 * goal must be a live goal of the registration's learning instance assigned to the registration
 * (else 404, docs/goals.md "The decided rules"); the registration's Durable Object focuses it and
 * answers from its learner state (one object call).
 */
export async function recommendationFor(env: Env, target: RecommendationTarget, flags: RecommendationFlags): Promise<RecommendationView> {
  const { context, goal, assignedAt } = target;
  if (!goal) throw notFound("Scoped goal");
  if (assignedAt === null) throw notFound("Goal assignment (the goal is not assigned to this registration)");
  const stub = registrationObject(env, context.registration.id);
  const r = await stub.recommend({
    goal: { ...goalSpecOf(goal, context.graphUuid, context.graphVersion), assignedAt },
    continuedRecommendations: flags.continuedRecommendations,
    nowMs: Date.now(),
  });
  const view: RecommendationView = { recommendation_id: r.id, module_ids: r.module_ids, status: r.status, focus_state: "focused", stuck: r.stuck };
  const top = r.module_ids[0];
  if (flags.justifications && top !== undefined && r.justification) view.justifications = { [top]: r.justification };
  return view;
}
