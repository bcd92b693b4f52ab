/**
 * Assignment of scoped goals to the registrations of their learning instance (docs/goals.md:
 * PUT/GET/DELETE .../scoped-goals/{goal_id}/registrations[/{registration_id}]).
 * Goal CRUD and scope resolution live in ./goals.ts.
 *
 * Functions later features use: `isAssigned`, `findAssignment`, `assignedGoalsOf`, `listAssignedRegistrations`.
 */
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { inList, jsonEach } from "../db/bound-list";
import type { Db } from "../db/client";
import { creationOrder } from "../db/creation-order";
import { type GoalRow, goalAssignments, goals, type LearningInstanceRow, type RegistrationRow, registrations } from "../db/schema";
import { type AssignTo, REGISTRATION_TYPES, type RegistrationType } from "../domain/vocabulary";
import { ApiError, notFound, unprocessable } from "../errors";
import type { BatchAction, BatchAssignmentOutcome } from "../schemas/goals";
import { ASSIGNMENT_BATCH_MAX } from "../schemas/limits";

/** A batchable statement that assigns a goal to the instance's live registrations of the given types (idempotent). */
export function assignByTypes(db: Db, goalId: string, liId: string, types: RegistrationType[], now: number) {
  return db
    .insert(goalAssignments)
    .select(
      db
        .select({ goalId: sql<string>`${goalId}`.as("goal_id"), registrationId: registrations.id, assignedAt: sql<number>`${now}`.as("assigned_at") })
        .from(registrations)
        .where(and(eq(registrations.learningInstanceId, liId), isNull(registrations.deletedAt), inArray(registrations.type, types))),
    )
    .onConflictDoNothing();
}

/** The registration types `config.assign_to` assigns at creation. */
export const ASSIGN_TYPES: Record<AssignTo, RegistrationType[]> = {
  none: [],
  learners: ["learner"],
  instructors: ["instructor"],
  all: [...REGISTRATION_TYPES],
};

// --- one registration ---

/** Whether the live goal is assigned to the live registration. */
export async function isAssigned(db: Db, goalId: string, registrationId: string): Promise<boolean> {
  return (await findAssignment(db, goalId, registrationId)) !== undefined;
}

/** The live assignment (its `assigned_at`, ms), if the live goal is assigned to the live registration. */
export async function findAssignment(db: Db, goalId: string, registrationId: string): Promise<{ assignedAt: number } | undefined> {
  return db
    .select({ assignedAt: goalAssignments.assignedAt })
    .from(goalAssignments)
    .innerJoin(goals, eq(goals.id, goalAssignments.goalId))
    .innerJoin(registrations, eq(registrations.id, goalAssignments.registrationId))
    .where(
      and(eq(goalAssignments.goalId, goalId), eq(goalAssignments.registrationId, registrationId), isNull(goals.deletedAt), isNull(registrations.deletedAt)),
    )
    .get();
}

/** The live goals assigned to a registration, in goal creation order (empty for a deleted registration). */
export async function assignedGoalsOf(db: Db, registrationId: string): Promise<GoalRow[]> {
  const rows = await db
    .select({ goal: goals })
    .from(goalAssignments)
    .innerJoin(goals, eq(goals.id, goalAssignments.goalId))
    .innerJoin(registrations, eq(registrations.id, goalAssignments.registrationId))
    .where(and(eq(goalAssignments.registrationId, registrationId), isNull(goals.deletedAt), isNull(registrations.deletedAt)))
    .orderBy(...creationOrder(goals))
    .all();
  return rows.map((r) => r.goal);
}

/** The live registrations a goal is assigned to, in registration creation order; optionally one type and one page. */
export async function listAssignedRegistrations(
  db: Db,
  goalId: string,
  options: { type?: RegistrationType; offset?: number; limit?: number } = {},
): Promise<RegistrationRow[]> {
  const filters = [eq(goalAssignments.goalId, goalId), isNull(registrations.deletedAt)];
  if (options.type) filters.push(eq(registrations.type, options.type));
  let query = db
    .select({ registration: registrations })
    .from(goalAssignments)
    .innerJoin(registrations, eq(registrations.id, goalAssignments.registrationId))
    .where(and(...filters))
    .orderBy(...creationOrder(registrations))
    .$dynamic();
  if (options.limit !== undefined || options.offset) query = query.limit(options.limit ?? -1).offset(options.offset ?? 0);
  return (await query.all()).map((r) => r.registration);
}

export async function assign(db: Db, goalId: string, registrationId: string, now = Date.now()): Promise<void> {
  await db.insert(goalAssignments).values({ goalId, registrationId, assignedAt: now }).onConflictDoNothing();
}

/** Removes the assignment; false when there was none. */
export async function unassign(db: Db, goalId: string, registrationId: string): Promise<boolean> {
  const removed = await db
    .delete(goalAssignments)
    .where(and(eq(goalAssignments.goalId, goalId), eq(goalAssignments.registrationId, registrationId)))
    .returning({ id: goalAssignments.registrationId });
  return removed.length > 0;
}

/**
 * The registration named in an assignment path: a live registration of the goal's learning
 * instance. Unknown, deleted or another partner's → 404; another instance of the partner → 422.
 */
export async function requireRegistrationOf(db: Db, li: LearningInstanceRow, registrationId: string): Promise<RegistrationRow> {
  const reg = await db
    .select()
    .from(registrations)
    .where(and(eq(registrations.id, registrationId.toLowerCase()), isNull(registrations.deletedAt)))
    .get();
  if (!reg || reg.partnerId !== li.partnerId) throw notFound("Registration");
  if (reg.learningInstanceId !== li.id) {
    throw unprocessable("The registration belongs to another learning instance; goals are assigned only within their own instance.", [
      { path: "path.registration_id", message: "registration of another learning instance" },
    ]);
  }
  return reg;
}

/**
 * Batch assign/unassign by ids (≤ 500) or by registration type. Ids that name no live registration of
 * the partner fail with 404, those of another learning instance with 422; the rest succeed. Both
 * actions are idempotent: assigning an assigned registration or unassigning an unassigned one succeeds.
 */
export async function batchAssignment(
  db: Db,
  li: LearningInstanceRow,
  goal: GoalRow,
  action: BatchAction,
  target: { registration_ids: string[] } | { registration_type: RegistrationType },
  now = Date.now(),
): Promise<BatchAssignmentOutcome> {
  if ("registration_type" in target) {
    const regs = await db
      .select({ id: registrations.id })
      .from(registrations)
      .where(and(eq(registrations.learningInstanceId, li.id), eq(registrations.type, target.registration_type), isNull(registrations.deletedAt)))
      .orderBy(...creationOrder(registrations))
      .all();
    const ids = regs.map((r) => r.id);
    await applyBatch(db, goal.id, action, ids, now);
    return { action, success: { registration_ids: ids }, failure: [] };
  }

  const requested = [...new Set(target.registration_ids.map((id) => id.toLowerCase()))];
  if (requested.length > ASSIGNMENT_BATCH_MAX) throw new ApiError(400, `At most ${ASSIGNMENT_BATCH_MAX} registration_ids per request.`);
  const found = requested.length
    ? await db
        .select({ id: registrations.id, partnerId: registrations.partnerId, learningInstanceId: registrations.learningInstanceId })
        .from(registrations)
        .where(and(inList(registrations.id, requested), isNull(registrations.deletedAt)))
        .all()
    : [];
  const byId = new Map(found.map((r) => [r.id.toLowerCase(), r]));
  const ok: string[] = [];
  const unknown: string[] = [];
  const elsewhere: string[] = [];
  for (const id of requested) {
    const reg = byId.get(id);
    if (!reg || reg.partnerId !== li.partnerId) unknown.push(id);
    else if (reg.learningInstanceId !== li.id) elsewhere.push(id);
    else ok.push(reg.id);
  }
  await applyBatch(db, goal.id, action, ok, now);
  const failure: BatchAssignmentOutcome["failure"] = [];
  if (unknown.length) failure.push({ registration_ids: unknown, code: 404, message: "No such registration (unknown or deleted)." });
  if (elsewhere.length) failure.push({ registration_ids: elsewhere, code: 422, message: "The registration belongs to another learning instance." });
  return { action, success: { registration_ids: ok }, failure };
}

async function applyBatch(db: Db, goalId: string, action: BatchAction, ids: string[], now: number): Promise<void> {
  if (!ids.length) return;
  if (action === "assign") {
    await db.run(sql`INSERT OR IGNORE INTO goal_assignments (goal_id, registration_id, assigned_at)
      SELECT ${goalId}, value, ${now} FROM ${jsonEach(ids)}`);
  } else {
    await db.run(sql`DELETE FROM goal_assignments WHERE goal_id = ${goalId} AND ${inList(goalAssignments.registrationId, ids)}`);
  }
}
