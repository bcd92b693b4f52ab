/**
 * Scoped goals of a learning instance (docs/goals.md): CRUD and scope resolution.
 * A goal stores its API body (defaults filled) and its scope resolved against the instance's graph
 * (labels); `goalScope` keeps that scope current with the graph's latest version. Assignment to
 * registrations is in ./goal-assignments.ts.
 *
 * Functions later features use: `findGoal`, `goalScope`, `goalDeadline`.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { creationOrder } from "../db/creation-order";
import { isRefusal } from "../db/refusals";
import { type GoalRow, goalAssignments, goals, type LearningInstanceRow, learningInstances } from "../db/schema";
import type { TargetKind } from "../domain/vocabulary";
import { notFound, unprocessable } from "../errors";
import { goalScopeInput, resolveGoalScope, scopeLabels } from "../graphs/resolve-goal-scope";
import type { GraphIndex } from "../graphs/runtime-graph";
import { addIsoDuration, parseIsoDuration } from "../lib/iso-duration";
import { latestGraphVersion, loadRuntimeGraph } from "../reads/graph-versions";
import type { ErrorDetail } from "../schemas/common";
import type { GoalBody, GoalInput, GoalView, ResolvedScopeView } from "../schemas/goals";
import { INSTANCE_GOALS_MAX, PAGE_MAX_BYTES } from "../schemas/limits";
import { ASSIGN_TYPES, assignByTypes } from "./goal-assignments";
import { resolveGraphRef } from "./graph-store";
import { containsEmail } from "./pii";

/** How far ahead `timing.end` may lie. */
export const MAX_GOAL_END_MS = 2 * 366 * 24 * 3600 * 1000;

const iso = (ms: number) => new Date(ms).toISOString();

export function goalView(row: GoalViewRow): GoalView {
  return {
    id: row.id,
    learning_instance_id: row.learningInstanceId,
    ...row.body,
    created_at: iso(row.createdAt),
    last_modified: iso(row.updatedAt),
  };
}

export function resolvedScopeView(row: GoalScope): ResolvedScopeView {
  return {
    graph_id: row.graphUuid,
    graph_version: row.graphVersion,
    target_learning_objective_ids: row.targetObjectives,
    learning_objective_ids: row.scopeObjectives,
    module_ids: row.scopeModules,
  };
}

export function targetKindOf(input: Pick<GoalInput, "targets" | "topics">): TargetKind {
  const first = input.targets?.include[0] ?? input.topics?.[0]?.targets.include[0] ?? "";
  return first.startsWith("mref-") ? "module" : "objective";
}

/** Fills the decided defaults (docs/goals.md "The decided rules") and normalizes timestamps to UTC `Z`. */
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

/** A goal's resolved scope: the graph version it was resolved against and the labels (goals columns). */
export type GoalScope = Pick<GoalRow, "graphUuid" | "graphVersion" | "targetObjectives" | "scopeObjectives" | "scopeModules">;

const scopeColumns = (row: GoalScope): GoalScope => ({
  graphUuid: row.graphUuid,
  graphVersion: row.graphVersion,
  targetObjectives: row.targetObjectives,
  scopeObjectives: row.scopeObjectives,
  scopeModules: row.scopeModules,
});

function resolveScope(index: GraphIndex, body: GoalBody): GoalScope {
  const result = resolveGoalScope(index, goalScopeInput(body));
  if (!result.ok) {
    const unknown = result.problems.filter((p) => p.message.startsWith("unknown")).length;
    throw unprocessable(
      unknown ? `${unknown} id(s) of the goal are not in the learning instance's graph; see details.` : "The goal's scope is not valid; see details.",
      result.problems,
    );
  }
  return { graphUuid: index.graph.id, graphVersion: index.graph.version, ...scopeLabels(index, result.scope) };
}

/**
 * The goal's resolved scope, current with the latest version of its graph: every reader of the
 * scope goes through here (never the stored columns directly). Costs one small D1 read of the
 * graph's version; when a newer version exists (graph updates are additive, so new modules may
 * now be in scope), re-resolves the goal's stored body against it and persists the result. The
 * write is conditional on the row being unchanged since it was read (same graph_version and
 * updated_at), so it never overwrites a concurrent goal PUT; `updated_at` is left as is (the goal
 * itself did not change).
 */
export async function goalScope(db: Db, goal: GoalRow): Promise<GoalScope> {
  const stored = scopeColumns(goal);
  const latest = await latestGraphVersion(db, goal.graphUuid);
  if (latest === undefined || latest <= goal.graphVersion) return stored;
  const index = await loadRuntimeGraph(db, goal.graphUuid, latest);
  if (!index) return stored;
  let fresh: GoalScope;
  try {
    fresh = resolveScope(index, goal.body);
  } catch (error) {
    // Cannot happen for an additive update (every id the goal names is kept); keep what is stored, visibly.
    console.error(
      JSON.stringify({ goal: goal.id, graph: goal.graphUuid, version: latest, scope: "re-resolution failed; stored scope kept", error: String(error) }),
    );
    return stored;
  }
  await db
    .update(goals)
    .set(fresh)
    .where(and(eq(goals.id, goal.id), eq(goals.graphVersion, goal.graphVersion), eq(goals.updatedAt, goal.updatedAt), isNull(goals.deletedAt)));
  return fresh;
}

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
    body,
    ...resolved,
    endAt: body.timing?.end ?? null,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  const types = ASSIGN_TYPES[body.config.assign_to];
  try {
    if (types.length) await db.batch([db.insert(goals).values(row), assignByTypes(db, row.id, li.id, types, now)]);
    else await db.insert(goals).values(row);
  } catch (error) {
    // The instance was deleted after it was read (migration 0006's trigger refused the goal; the batch rolled back).
    if (isRefusal(error, "learning_instance_not_live")) throw notFound("Learning instance");
    // migration 0011's trigger: the instance holds INSTANCE_GOALS_MAX live goals
    if (isRefusal(error, "learning_instance_full")) {
      throw unprocessable(`A learning instance holds at most ${INSTANCE_GOALS_MAX} scoped goals; delete one first.`, [
        { path: "path.id", message: `at most ${INSTANCE_GOALS_MAX} scoped goals per learning instance` },
      ]);
    }
    throw error;
  }
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
  const next: GoalRow = { ...current, body, ...resolved, endAt: body.timing?.end ?? null, updatedAt: now };
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
  await db.batch([db.delete(goalAssignments).where(eq(goalAssignments.goalId, goalId)), db.update(goals).set({ deletedAt: now }).where(eq(goals.id, goalId))]);
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

/** What a goal's view adds to its stored body: ids, timestamps, member names (an upper bound, bytes). */
const GOAL_VIEW_EXTRA_BYTES = 200;

/**
 * One page of the instance's live goals. A goal may hold thousands of ids, so a page whose answer would
 * pass PAGE_MAX_BYTES is refused (422 naming the limit and the `limit` that fits) before any
 * body is read: the bodies' sizes are read first.
 */
export async function listGoals(db: Db, learningInstanceId: string, offset: number, limit: number): Promise<GoalViewRow[]> {
  const live = and(eq(goals.learningInstanceId, learningInstanceId), isNull(goals.deletedAt));
  const sizes = await db
    .select({ bytes: sql<number>`length(CAST(${goals.body} AS BLOB))` })
    .from(goals)
    .where(live)
    .orderBy(...creationOrder(goals))
    .limit(limit)
    .offset(offset)
    .all();
  let total = 2;
  let fits = 0;
  for (const { bytes } of sizes) {
    total += bytes + GOAL_VIEW_EXTRA_BYTES;
    if (total <= PAGE_MAX_BYTES) fits++;
  }
  if (total > PAGE_MAX_BYTES) {
    throw unprocessable(`This page of goals would pass ${PAGE_MAX_BYTES / 1e6} MB, the most one answer holds: ask for at most ${fits} goals (limit).`, [
      { path: "query.limit", message: `a page holds at most ${PAGE_MAX_BYTES / 1e6} MB of goals: at most ${fits} from this offset` },
    ]);
  }
  return db
    .select({ id: goals.id, learningInstanceId: goals.learningInstanceId, body: goals.body, createdAt: goals.createdAt, updatedAt: goals.updatedAt })
    .from(goals)
    .where(live)
    .orderBy(...creationOrder(goals))
    .limit(limit)
    .offset(offset)
    .all();
}
