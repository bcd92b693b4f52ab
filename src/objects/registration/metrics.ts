import {
  type ActivitySummary,
  activityByDay,
  expectedScoreValue,
  type MetricContext,
  proficiencyValue,
  readinessForecast,
  stateProjection,
  type WatchFlag,
  watchFlags,
} from "../../analytics";
import type { GraphIndex } from "../../graphs/runtime-graph";
import type { ItemEntry } from "../../model";
import { SERVICE_PARAMS } from "../../model/service-params";
import { type GoalStatus, goalCompletion, goalStatus, type PreparedGoal } from "../../policy";
import { itemPoolsFor } from "../../reads/item-params";
import type { PopulationRates } from "../../tracing/rates";
import type { ModelState } from "./model-state-store";
import type { MetricGoal } from "./rpc";

/** The metric context of one registration: the model's filter and the graph's item pools (cached per parameter set). */
export function metricContext(graph: GraphIndex, items: Record<string, ItemEntry>, nowMs: number): MetricContext {
  return {
    nowMs,
    filter: SERVICE_PARAMS.filter,
    globalDifficulty: SERVICE_PARAMS.globalDifficulty,
    pool: itemPoolsFor(graph, items),
    memo: { terms: new Map() },
  };
}

const targetLabels = (goal: PreparedGoal) => goal.targetObjectives.map((k) => goal.labels[k] as string);

export function proficiencyValues(state: ModelState, goals: PreparedGoal[], objectiveIds: string[], ctx: MetricContext) {
  const projection = stateProjection(state.learner);
  return [...goals.map((g) => proficiencyValue(projection, targetLabels(g), ctx)), ...objectiveIds.map((k) => proficiencyValue(projection, [k], ctx))];
}

export function expectedScoreValues(state: ModelState, goals: PreparedGoal[], ctx: MetricContext) {
  const projection = stateProjection(state.learner);
  return goals.map((g) => expectedScoreValue(projection, targetLabels(g), ctx));
}

/** The readiness forecast of an assigned goal from the policy's completion and work remaining, and its deadline. */
function forecastOf(
  status: { complete: boolean; work_remaining: number },
  assignedAtMs: number,
  deadlineMs: number | null,
  activity: ActivitySummary,
  nowMs: number,
) {
  return readinessForecast({
    nowMs,
    deadlineMs,
    complete: status.complete,
    workRemaining: status.work_remaining >= 0 ? { expected: status.work_remaining } : null,
    assignedAtMs,
    activity,
  });
}

/** Readiness per goal; a goal not assigned to the registration has no deadline to be ready by. */
export function readinessValues(
  state: ModelState,
  activity: ActivitySummary,
  goals: { prepared: PreparedGoal; request: MetricGoal }[],
  population: PopulationRates,
  nowMs: number,
) {
  return goals.map(({ prepared, request }) => {
    const assignedAt = request.spec.assignedAt;
    if (assignedAt === undefined) return { probability_ready_by_end: null, projected_completion: null };
    const f = forecastOf(goalCompletion(prepared, state.tutor, population, { nowMs }), assignedAt, request.deadlineMs, activity, nowMs);
    return { probability_ready_by_end: f.probability_ready_by_end, projected_completion: f.projected_completion };
  });
}

export function activeTimeValues(activity: ActivitySummary, firstDay: number, lastDay: number, utcOffsetMinutes: number) {
  return activityByDay(activity, firstDay, lastDay, utcOffsetMinutes).map(({ active_time_ms, time_spent_ms }) => ({ active_time_ms, time_spent_ms }));
}

/** Per goal: whether the learner is stuck (the recommendation's rule), struggling on a target, and the other flags (src/analytics/watch.ts). */
export interface WatchResult {
  stuck: boolean;
  struggling: boolean;
  flags: WatchFlag[];
}

export function watchResults(
  registrationId: string,
  state: ModelState,
  activity: ActivitySummary,
  goals: { prepared: PreparedGoal; request: MetricGoal; workOnGoal: number | undefined }[],
  population: PopulationRates,
  nowMs: number,
): WatchResult[] {
  return goals.map(({ prepared, request, workOnGoal }) => {
    const status: GoalStatus = goalStatus(prepared, state.tutor, population, { nowMs, workOnGoal });
    let eventsInScope = 0;
    for (const label of prepared.labels) {
      const t = state.tutor.obj[label];
      if (t) eventsInScope += t.answers;
    }
    const assignedAt = request.spec.assignedAt;
    const readiness =
      request.deadlineMs !== null && assignedAt !== undefined
        ? forecastOf({ complete: status.status === "complete", work_remaining: status.work_remaining }, assignedAt, request.deadlineMs, activity, nowMs)
        : undefined;
    const flags = watchFlags({
      registrationId,
      goalId: request.spec.id,
      nowMs,
      status: status.status,
      progress: status.progress,
      eventsInScope,
      lastActivityMs: activity.lastEndMs,
      assignedAtMs: assignedAt,
      deadlineMs: request.deadlineMs,
      readiness,
    });
    const stuck = status.status === "struggling";
    return { stuck, struggling: !stuck && status.targets.some((t) => t.status === "struggling"), flags };
  });
}
