import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { preparedPerDb } from "../db/prepared";
import { goalAssignments, goals } from "../db/schema";
import type { Env } from "../env";
import { notFound } from "../errors";
import type { RecommendationView } from "../schemas/recommendations";
import { goalSpecOf } from "./goal-specs";
import type { RegistrationContext } from "./registrations";
import { registrationObject } from "./registrations";

export interface RecommendationFlags {
  continuedRecommendations: boolean;
  justifications: boolean;
}

/** The goal and its assignment to the registration (prepared once, not built per recommendation). */
const goalQueryOf = preparedPerDb((db) =>
  db
    .select({ goal: goals, assignedAt: goalAssignments.assignedAt })
    .from(goals)
    .leftJoin(goalAssignments, and(eq(goalAssignments.goalId, goals.id), eq(goalAssignments.registrationId, sql.placeholder("registrationId"))))
    .where(and(eq(goals.id, sql.placeholder("goalId")), eq(goals.learningInstanceId, sql.placeholder("liId")), isNull(goals.deletedAt)))
    .prepare(),
);

/**
 * GET /v0/registrations/{id}/recommendation: the goal must be a live goal of the registration's
 * learning instance assigned to the registration (else 404, docs/goals.md "The decided rules"); the
 * registration's Durable Object focuses it and answers from its learner state (one D1 query here,
 * one object call).
 */
export async function recommendationFor(
  env: Env,
  db: Db,
  context: RegistrationContext,
  goalId: string,
  flags: RecommendationFlags,
): Promise<RecommendationView> {
  const row = await goalQueryOf(db).get({ goalId, registrationId: context.registration.id, liId: context.registration.learningInstanceId });
  if (!row) throw notFound("Scoped goal");
  if (row.assignedAt === null) throw notFound("Goal assignment (the goal is not assigned to this registration)");
  const stub = registrationObject(env, context.registration.id);
  const r = await stub.recommend({
    goal: goalSpecOf(row.goal, context.graphUuid, context.graphVersion),
    continuedRecommendations: flags.continuedRecommendations,
    nowMs: Date.now(),
  });
  const view: RecommendationView = { recommendation_id: r.id, module_ids: r.module_ids, status: r.status, focus_state: "focused", stuck: r.stuck };
  const top = r.module_ids[0];
  if (flags.justifications && top !== undefined && r.justification) view.justifications = { [top]: r.justification };
  return view;
}
