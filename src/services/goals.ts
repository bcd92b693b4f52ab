/**
 * Scoped goals of a learning instance (decisions.md "Scoped goals") and their assignment to the
 * instance's registrations. A goal stores its API body (defaults filled) and its scope resolved
 * against the instance's graph (labels), so later readers need not load the graph.
 *
 * Functions later features use: `findGoal`, `isAssigned`, `assignedGoalsOf`, `listAssignedRegistrations`.
 */
import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { goalAssignments, goals, learningInstances, registrations, type GoalRow, type LearningInstanceRow, type RegistrationRow } from "../db/schema";
import { resolveGoalScope, type IdRef, type RemediationDepth } from "../graphs/resolve-goal-scope";
import type { GraphIndex } from "../graphs/runtime-graph";
import { addIsoDuration, parseIsoDuration } from "../lib/iso-duration";
import { ApiError, notFound, unprocessable, type ErrorDetail } from "../http/errors";
import { loadRuntimeGraph, resolveGraphRef } from "./graph-store";
import { containsEmail } from "./pii";

export type AdaptiveBehavior = "practice" | "introduce" | "review";
export type CompletionBehavior = "all" | "average";
export type AssignTo = "none" | "learners" | "instructors" | "all";
export type RegistrationType = "learner" | "instructor";

/** A goal request body after structural validation (the route's zod schema); defaults not yet filled. */
export interface GoalInput {
  name: string;
  adaptive_behavior: AdaptiveBehavior;
  targets?: { include: string[]; completion_behavior?: CompletionBehavior };
  topics?: { id: string; name?: string; targets: { include: string[]; completion_behavior?: CompletionBehavior } }[];
  scope?: { remediation_depth?: RemediationDepth; include?: string[]; exclude?: string[] };
  completion_criteria?: { min_predicted_mastery?: number; min_work_per_target?: number; max_work_on_goal?: number };
  timing?: { end?: string; relative_deadline?: string };
  config?: { analytics_enabled?: boolean; assign_to?: AssignTo };
}

/** The stored and echoed goal fields, defaults filled. */
export interface GoalBody {
  name: string;
  adaptive_behavior: AdaptiveBehavior;
  targets?: { include: string[]; completion_behavior: CompletionBehavior };
  topics?: { id: string; name?: string; targets: { include: string[]; completion_behavior: CompletionBehavior } }[];
  scope: { remediation_depth: RemediationDepth; include: string[]; exclude: string[] };
  completion_criteria: { min_predicted_mastery: number; min_work_per_target?: number; max_work_on_goal?: number };
  timing?: { end?: string; relative_deadline?: string };
  config: { analytics_enabled: boolean; assign_to: AssignTo };
}

export interface GoalView extends GoalBody {
  id: string;
  learning_instance_id: string;
  created_at: string;
  last_modified: string;
}

export interface ResolvedScopeView {
  graph_id: string;
  graph_version: number;
  target_learning_objective_ids: string[];
  learning_objective_ids: string[];
  module_ids: string[];
}

/** How far ahead `timing.end` may lie. */
export const MAX_GOAL_END_MS = 2 * 366 * 24 * 3600 * 1000;

const iso = (ms: number) => new Date(ms).toISOString();

export function goalView(row: GoalViewRow): GoalView {
  return {
    id: row.id,
    learning_instance_id: row.learningInstanceId,
    ...goalBodyOf(row),
    created_at: iso(row.createdAt),
    last_modified: iso(row.updatedAt),
  };
}

export function resolvedScopeView(row: GoalRow): ResolvedScopeView {
  return {
    graph_id: row.graphUuid,
    graph_version: row.graphVersion,
    target_learning_objective_ids: row.targetObjectives,
    learning_objective_ids: row.scopeObjectives,
    module_ids: row.scopeModules,
  };
}

export function targetKindOf(input: Pick<GoalInput, "targets" | "topics">): "objective" | "module" {
  const first = input.targets?.include[0] ?? input.topics?.[0]?.targets.include[0] ?? "";
  return first.startsWith("mref-") ? "module" : "objective";
}

/** Fills the decided defaults (decisions.md) and normalizes timestamps to UTC `Z`. */
export function normalizeGoal(input: GoalInput): GoalBody {
  const body: GoalBody = {
    name: input.name,
    adaptive_behavior: input.adaptive_behavior,
    scope: {
      remediation_depth: input.scope?.remediation_depth ?? "one",
      include: input.scope?.include ?? [],
      exclude: input.scope?.exclude ?? [],
    },
    completion_criteria: { min_predicted_mastery: input.completion_criteria?.min_predicted_mastery ?? 0.8 },
    config: { analytics_enabled: input.config?.analytics_enabled ?? true, assign_to: input.config?.assign_to ?? "none" },
  };
  if (input.targets) body.targets = { include: input.targets.include, completion_behavior: input.targets.completion_behavior ?? "all" };
  if (input.topics) {
    body.topics = input.topics.map((t) => ({
      id: t.id,
      ...(t.name !== undefined ? { name: t.name } : {}),
      targets: { include: t.targets.include, completion_behavior: t.targets.completion_behavior ?? "all" },
    }));
  }
  const cc = input.completion_criteria;
  if (cc?.min_work_per_target !== undefined) body.completion_criteria.min_work_per_target = cc.min_work_per_target;
  if (cc?.max_work_on_goal !== undefined) body.completion_criteria.max_work_on_goal = cc.max_work_on_goal;
  if (input.timing && (input.timing.end !== undefined || input.timing.relative_deadline !== undefined)) {
    body.timing = {};
    if (input.timing.end !== undefined) body.timing.end = new Date(input.timing.end).toISOString();
    if (input.timing.relative_deadline !== undefined) body.timing.relative_deadline = input.timing.relative_deadline;
  }
  return body;
}

/** The stored goal fields of a row, typed. */
export function goalBodyOf(row: Pick<GoalRow, "body">): GoalBody {
  return row.body as unknown as GoalBody;
}

/**
 * When the goal is due for a registration assigned at `assignedAt` (ms): the earlier of `timing.end`
 * and `assignedAt + timing.relative_deadline`; undefined when the goal has no timing.
 */
export function goalDeadline(body: GoalBody, assignedAt: number): Date | undefined {
  const candidates: number[] = [];
  if (body.timing?.end) candidates.push(Date.parse(body.timing.end));
  const rel = body.timing?.relative_deadline ? parseIsoDuration(body.timing.relative_deadline) : undefined;
  if (rel) candidates.push(addIsoDuration(new Date(assignedAt), rel).getTime());
  return candidates.length ? new Date(Math.min(...candidates)) : undefined;
}

/** The semantic checks that need no graph: names without e-mail addresses, end within two years. */
function checkGoal(body: GoalBody, now: number): void {
  const details: ErrorDetail[] = [];
  if (containsEmail(body.name)) details.push({ path: "body.name", message: "contains an e-mail address" });
  body.topics?.forEach((t, i) => {
    if (t.name !== undefined && containsEmail(t.name)) details.push({ path: `body.topics[${i}].name`, message: "contains an e-mail address" });
  });
  if (details.length) throw unprocessable("Goal and topic names must hold no personal data; a name contains an e-mail address.", details);
  if (body.timing?.end !== undefined && Date.parse(body.timing.end) > now + MAX_GOAL_END_MS) {
    throw unprocessable("timing.end must lie within two years from now.", [{ path: "body.timing.end", message: "more than two years ahead" }]);
  }
}

/** The graph the learning instance teaches, latest version. */
export async function instanceGraph(db: Db, li: LearningInstanceRow): Promise<GraphIndex> {
  const uuid = li.graphUuid ?? (await resolveGraphRef(db, li.partnerId, li.graphId))?.id;
  const index = uuid ? await loadRuntimeGraph(db, uuid) : undefined;
  if (!index) {
    throw unprocessable(`The learning instance's graph '${li.graphId}' does not exist; ingest it with POST /v0/graphs first.`, [
      { path: "path.id", message: "the learning instance's graph is missing" },
    ]);
  }
  return index;
}

interface ResolvedColumns {
  graphUuid: string;
  graphVersion: number;
  targetObjectives: string[];
  scopeObjectives: string[];
  scopeModules: string[];
}

function resolveScope(index: GraphIndex, body: GoalBody): ResolvedColumns {
  const targets: IdRef[] = body.targets
    ? body.targets.include.map((id, i) => ({ id, path: `body.targets.include[${i}]` }))
    : (body.topics ?? []).flatMap((t, ti) => t.targets.include.map((id, i) => ({ id, path: `body.topics[${ti}].targets.include[${i}]` })));
  const result = resolveGoalScope(index, {
    targets,
    remediationDepth: body.scope.remediation_depth,
    include: body.scope.include.map((id, i) => ({ id, path: `body.scope.include[${i}]` })),
    exclude: body.scope.exclude.map((id, i) => ({ id, path: `body.scope.exclude[${i}]` })),
  });
  if (!result.ok) {
    const unknown = result.problems.filter((p) => p.message.startsWith("unknown")).length;
    throw unprocessable(
      unknown ? `${unknown} id(s) of the goal are not in the learning instance's graph; see details.` : "The goal's scope is not valid; see details.",
      result.problems,
    );
  }
  const { graph } = index;
  const objectiveLabels = (xs: number[]) => xs.map((i) => graph.objectives[i]!);
  return {
    graphUuid: graph.id,
    graphVersion: graph.version,
    targetObjectives: objectiveLabels(result.scope.targetObjectives),
    scopeObjectives: objectiveLabels(result.scope.objectives),
    scopeModules: result.scope.modules.map((i) => graph.modules[i]!.label),
  };
}

/** A batchable statement that assigns a goal to the instance's live registrations of the given types (idempotent). */
function assignByTypes(db: Db, goalId: string, liId: string, types: RegistrationType[], now: number) {
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

const ASSIGN_TYPES: Record<AssignTo, RegistrationType[]> = { none: [], learners: ["learner"], instructors: ["instructor"], all: ["learner", "instructor"] };

export async function createGoal(db: Db, li: LearningInstanceRow, input: GoalInput, now = Date.now()): Promise<GoalRow> {
  const body = normalizeGoal(input);
  checkGoal(body, now);
  const resolved = resolveScope(await instanceGraph(db, li), body);
  const row: GoalRow = {
    id: crypto.randomUUID(),
    partnerId: li.partnerId,
    learningInstanceId: li.id,
    targetKind: targetKindOf(body),
    adaptiveBehavior: body.adaptive_behavior,
    body: body as unknown as Record<string, unknown>,
    ...resolved,
    endAt: body.timing?.end ?? null,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  const types = ASSIGN_TYPES[body.config.assign_to];
  if (types.length) await db.batch([db.insert(goals).values(row), assignByTypes(db, row.id, li.id, types, now)]);
  else await db.insert(goals).values(row);
  return row;
}

/** PUT: replaces the whole goal; adaptive_behavior and the target kind are immutable. `assign_to` applies at creation only. */
export async function updateGoal(db: Db, li: LearningInstanceRow, current: GoalRow, input: GoalInput, now = Date.now()): Promise<GoalRow> {
  const body = normalizeGoal(input);
  const details: ErrorDetail[] = [];
  if (body.adaptive_behavior !== current.adaptiveBehavior) {
    details.push({ path: "body.adaptive_behavior", message: `cannot change (the goal's is '${current.adaptiveBehavior}')` });
  }
  const kind = targetKindOf(body);
  if (kind !== current.targetKind) {
    details.push({
      path: body.targets ? "body.targets.include" : "body.topics",
      message: `the target kind cannot change (the goal targets ${current.targetKind === "objective" ? "learning objectives (lref-)" : "modules (mref-)"})`,
    });
  }
  if (details.length) throw unprocessable("adaptive_behavior and the target kind of a goal cannot change; create a new goal instead.", details);
  checkGoal(body, now);
  const resolved = resolveScope(await instanceGraph(db, li), body);
  const next: GoalRow = { ...current, body: body as unknown as Record<string, unknown>, ...resolved, endAt: body.timing?.end ?? null, updatedAt: now };
  await db
    .update(goals)
    .set({
      body: next.body,
      graphUuid: next.graphUuid,
      graphVersion: next.graphVersion,
      targetObjectives: next.targetObjectives,
      scopeObjectives: next.scopeObjectives,
      scopeModules: next.scopeModules,
      endAt: next.endAt,
      updatedAt: now,
    })
    .where(and(eq(goals.id, current.id), isNull(goals.deletedAt)));
  return next;
}

/** Soft-deletes the goal (the row stays for the record) and removes its assignments. */
export async function deleteGoal(db: Db, goalId: string, now = Date.now()): Promise<void> {
  await db.batch([
    db.delete(goalAssignments).where(eq(goalAssignments.goalId, goalId)),
    db.update(goals).set({ deletedAt: now }).where(eq(goals.id, goalId)),
  ]);
}

/** A live goal (not deleted, in a live learning instance) of any partner; callers check the partner. */
export async function findGoal(db: Db, id: string): Promise<GoalRow | undefined> {
  const row = await db
    .select({ goal: goals })
    .from(goals)
    .innerJoin(learningInstances, eq(learningInstances.id, goals.learningInstanceId))
    .where(and(eq(goals.id, id.toLowerCase()), isNull(goals.deletedAt), isNull(learningInstances.deletedAt)))
    .get();
  return row?.goal;
}

/** The live goal `id` of learning instance `li`, else 404. */
export async function requireGoalOf(db: Db, li: LearningInstanceRow, id: string): Promise<GoalRow> {
  const row = await findGoal(db, id);
  if (!row || row.learningInstanceId !== li.id) throw notFound("Scoped goal");
  return row;
}

/** The fields a goal's API view needs (no resolved scope: a page of goals stays small). */
export type GoalViewRow = Pick<GoalRow, "id" | "learningInstanceId" | "body" | "createdAt" | "updatedAt">;

export async function listGoals(db: Db, learningInstanceId: string, offset: number, limit: number): Promise<GoalViewRow[]> {
  return db
    .select({ id: goals.id, learningInstanceId: goals.learningInstanceId, body: goals.body, createdAt: goals.createdAt, updatedAt: goals.updatedAt })
    .from(goals)
    .where(and(eq(goals.learningInstanceId, learningInstanceId), isNull(goals.deletedAt)))
    .orderBy(asc(goals.createdAt), asc(sql`rowid`))
    .limit(limit)
    .offset(offset)
    .all();
}

// --- assignment ---

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
      and(
        eq(goalAssignments.goalId, goalId),
        eq(goalAssignments.registrationId, registrationId),
        isNull(goals.deletedAt),
        isNull(registrations.deletedAt),
      ),
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
    .orderBy(asc(goals.createdAt), asc(goals.id))
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
    .orderBy(asc(registrations.createdAt), asc(registrations.id))
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

export type BatchAction = "assign" | "unassign";

export interface BatchFailure {
  registration_ids: string[];
  code: 404 | 422;
  message: string;
}

export interface BatchResult {
  action: BatchAction;
  success: { registration_ids: string[] };
  failure: BatchFailure[];
}

export const BATCH_MAX_IDS = 500;

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
): Promise<BatchResult> {
  if ("registration_type" in target) {
    const regs = await db
      .select({ id: registrations.id })
      .from(registrations)
      .where(and(eq(registrations.learningInstanceId, li.id), eq(registrations.type, target.registration_type), isNull(registrations.deletedAt)))
      .orderBy(asc(registrations.createdAt), asc(registrations.id))
      .all();
    const ids = regs.map((r) => r.id);
    await applyBatch(db, goal.id, action, ids, now);
    return { action, success: { registration_ids: ids }, failure: [] };
  }

  const requested = [...new Set(target.registration_ids.map((id) => id.toLowerCase()))];
  if (requested.length > BATCH_MAX_IDS) throw new ApiError(400, `At most ${BATCH_MAX_IDS} registration_ids per request.`);
  const found = requested.length
    ? await db
        .select({ id: registrations.id, partnerId: registrations.partnerId, learningInstanceId: registrations.learningInstanceId })
        .from(registrations)
        .where(and(sql`${registrations.id} IN (SELECT value FROM json_each(${JSON.stringify(requested)}))`, isNull(registrations.deletedAt)))
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
  const failure: BatchFailure[] = [];
  if (unknown.length) failure.push({ registration_ids: unknown, code: 404, message: "No such registration (unknown or deleted)." });
  if (elsewhere.length) failure.push({ registration_ids: elsewhere, code: 422, message: "The registration belongs to another learning instance." });
  return { action, success: { registration_ids: ok }, failure };
}

async function applyBatch(db: Db, goalId: string, action: BatchAction, ids: string[], now: number): Promise<void> {
  if (!ids.length) return;
  const list = JSON.stringify(ids);
  if (action === "assign") {
    await db.run(sql`INSERT OR IGNORE INTO goal_assignments (goal_id, registration_id, assigned_at)
      SELECT ${goalId}, value, ${now} FROM json_each(${list})`);
  } else {
    await db.run(sql`DELETE FROM goal_assignments WHERE goal_id = ${goalId} AND registration_id IN (SELECT value FROM json_each(${list}))`);
  }
}
