import type { PathwiseClient, Schemas, StatusRow } from "../client";

export type Goal = Schemas["ScopedGoal"];
export type ProficiencyValue = Schemas["ProficiencyValue"];
export type ActiveTimeValue = Schemas["ActiveTimeValue"];
export type WatchGroup = Schemas["LearnersToWatch"]["groups"][number];

export interface Learner {
  registrationId: string;
  accountId: string | undefined;
  /** "Learner 3": the service knows no names (spec 2.1); numbered in registration order */
  label: string;
}

export interface Score {
  learner: Learner;
  p10: number;
  p50: number;
  p90: number;
  coverage: number;
}

export interface ClassData {
  instance: Schemas["LearningInstance"];
  goals: Goal[];
  goal: Goal;
  /** heatmap columns: the goal's targets, then the rest of its scope (at most 50) */
  objectives: { id: string; name: string; target: boolean }[];
  targetNames: Map<string, string>;
  learners: Map<string, Learner>;
  status: StatusRow[];
  watch: WatchGroup[];
  proficiency: { learner: Learner; values: ProficiencyValue[] }[];
  scores: Score[];
  activity: { days: string[]; rows: { learner: Learner; values: ActiveTimeValue[] }[] };
  loadedAt: Date;
}

const OBJECTIVE_COLUMNS_MAX = 50;
const ACCOUNTS_PER_SCORE_REQUEST = 500;

const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
};

/** The last 7 calendar days in the browser's time zone, and that zone's offset (a multiple of 15 minutes). */
export function lastWeek(now = new Date()): { start: string; end: string; offsetMinutes: number; days: string[] } {
  const offsetMinutes = Math.max(-720, Math.min(840, Math.round(-now.getTimezoneOffset() / 15) * 15));
  const local = new Date(now.getTime() + offsetMinutes * 60_000);
  const days = Array.from({ length: 7 }, (_, i) => new Date(local.getTime() - (6 - i) * 86_400_000).toISOString().slice(0, 10));
  return { start: days[0]!, end: days[6]!, offsetMinutes, days };
}

/** Goals of the instance (every page). */
export async function loadGoals(pw: PathwiseClient, instanceId: string): Promise<Goal[]> {
  return collect(pw.list("/v0/learning-instances/{id}/scoped-goals", { params: { path: { id: instanceId } } }));
}

/**
 * Everything the page shows, from the public API with the caller's own token: the caller rules
 * decide (an instructor of the instance or the partner admin; anyone else gets the API's 403/404).
 */
export async function loadClass(pw: PathwiseClient, instanceId: string, wantedGoalId: string | undefined): Promise<ClassData> {
  const id = instanceId;
  // the table first: it is the call only instructors and the admin may make, so a learner's token stops here
  const [instance, goals] = await Promise.all([pw.GET("/v0/learning-instances/{id}", { params: { path: { id } } }), loadGoals(pw, id)]);
  const chosen = goals.find((g) => g.id === wantedGoalId) ?? goals[0];
  if (!chosen) throw new NoGoals(instance.name);
  const goalIds = [chosen.id];

  const week = lastWeek();
  const [goal, registrations, status, watch, activityRows] = await Promise.all([
    pw.GET("/v0/learning-instances/{id}/scoped-goals/{goal_id}", { params: { path: { id, goal_id: chosen.id }, query: { resolved_scope: "true" } } }),
    collect(pw.list("/v0/learning-instances/{li_id}/registrations", { params: { path: { li_id: id }, query: { type: "learner" } } })),
    collect(pw.statusAndProgress(id, { goal_ids: goalIds })),
    pw.learnersToWatch(id, { goal_ids: goalIds }),
    collect(pw.metricRows(id, "active-time", { goal_ids: goalIds, start_date: week.start, end_date: week.end, utc_offset_minutes: week.offsetMinutes })),
  ]);

  const learners = new Map<string, Learner>();
  for (const [i, r] of registrations.entries()) learners.set(r.id, { registrationId: r.id, accountId: r.account_id, label: `Learner ${i + 1}` });
  const learnerOf = (registrationId: string): Learner => {
    let l = learners.get(registrationId);
    if (!l) {
      l = { registrationId, accountId: undefined, label: `Learner ${registrationId.slice(0, 8)}` };
      learners.set(registrationId, l);
    }
    return l;
  };

  const scope = goal.resolved_scope;
  const graph = scope
    ? await pw.GET("/v0/graphs/{graph_id}", { params: { path: { graph_id: scope.graph_id }, query: { version: scope.graph_version } } })
    : undefined;
  const names = new Map((graph?.learning_objectives ?? []).map((o) => [o.id, o.name]));
  const targets = scope?.target_learning_objective_ids ?? goal.targets?.include.filter((t) => t.startsWith("lref-")) ?? [];
  const others = (scope?.learning_objective_ids ?? []).filter((o) => !targets.includes(o));
  const objectives = [...targets.map((o) => ({ id: o, target: true })), ...others.map((o) => ({ id: o, target: false }))]
    .slice(0, OBJECTIVE_COLUMNS_MAX)
    .map((o) => ({ ...o, name: names.get(o.id) ?? o.id }));
  const targetNames = new Map<string, string>();
  for (const t of goal.targets?.include ?? []) targetNames.set(t, names.get(t) ?? graph?.modules.find((m) => m.id === t)?.name ?? t);

  const [proficiencyRows, scores] = await Promise.all([
    objectives.length > 0
      ? collect(pw.metricRows(id, "proficiency", { learning_objective_ids: objectives.map((o) => o.id), goal_ids: goalIds }))
      : Promise.resolve([]),
    predictedScores(
      pw,
      scope?.graph_id ?? instance.graph_id,
      targets,
      status.map((r) => learnerOf(r.registration_id)),
    ),
  ]);

  return {
    instance,
    goals,
    goal,
    objectives,
    targetNames,
    learners,
    status,
    watch,
    // the goal column comes first (requested goal_ids before objectives); the heatmap shows the objectives
    proficiency: proficiencyRows.map((r) => ({ learner: learnerOf(r.registration_id), values: r.values.slice(goalIds.length) })),
    scores,
    activity: { days: week.days, rows: activityRows.map((r) => ({ learner: learnerOf(r.registration_id), values: r.values })) },
    loadedAt: new Date(),
  };
}

/** The class's predicted scores on the goal's targets (10th, 50th and 90th percentiles per learner). */
async function predictedScores(pw: PathwiseClient, graphId: string, targets: string[], learners: Learner[]): Promise<Score[]> {
  const withAccount = learners.filter((l): l is Learner & { accountId: string } => l.accountId !== undefined);
  if (targets.length === 0 || withAccount.length === 0) return [];
  const scores: Score[] = [];
  for (let i = 0; i < withAccount.length; i += ACCOUNTS_PER_SCORE_REQUEST) {
    const chunk = withAccount.slice(i, i + ACCOUNTS_PER_SCORE_REQUEST);
    const res = await pw.POST("/v0/accounts/metrics/predicted-score", {
      body: {
        account_ids: chunk.map((l) => l.accountId),
        graph_ids: [graphId],
        grouped_learning_objectives: [{ group_id: "goal", learning_objectives: targets.map((t) => ({ learning_objective_id: t })) }],
        confidence_levels: [10, 50, 90],
      },
    });
    for (const learner of chunk) {
      const group = res.account_scores[learner.accountId]?.group_scores[0];
      if (!group) continue;
      const at = (c: number) => group.scores.find((s) => s.confidence_level === c)?.predicted_score ?? Number.NaN;
      scores.push({ learner, p10: at(10), p50: at(50), p90: at(90), coverage: group.group_learning_objective_coverage });
    }
  }
  return scores;
}

export class NoGoals extends Error {
  constructor(readonly instanceName: string) {
    super(`The class "${instanceName}" has no goal yet.`);
  }
}
