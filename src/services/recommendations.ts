import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../db/client";
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
  const row = await db
    .select({ goal: goals, assignedAt: goalAssignments.assignedAt })
    .from(goals)
    .leftJoin(goalAssignments, and(eq(goalAssignments.goalId, goals.id), eq(goalAssignments.registrationId, context.registration.id)))
    .where(and(eq(goals.id, goalId), eq(goals.learningInstanceId, context.registration.learningInstanceId), isNull(goals.deletedAt)))
    .get();
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
