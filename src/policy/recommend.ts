/**
 * The recommendation: module_ids (best first), ready / in progress, stuck and the top module's
 * justification. Pure; see docs/recommendation.md for the rules.
 */
import type { PopulationRates } from "../tracing/rates";
import { GoalAnalysis } from "./analysis";
import { allowed, choose, rankAssessments, rankObjectives } from "./choose";
import { POLICY } from "./config";
import type { Justification, PreparedGoal, Recommendation, TutorState } from "./types";

export interface PolicyOptions {
  /** request time (ms); 0 = unknown */
  nowMs?: number;
  /** interactions spent on the goal since it was assigned (max_work_on_goal); absent: every interaction in scope counts */
  workOnGoal?: number;
}

export interface RecommendOptions extends PolicyOptions {
  continuedRecommendations?: boolean;
}

export function recommend(goal: PreparedGoal, tutor: TutorState, population: PopulationRates, options: RecommendOptions = {}): Recommendation {
  return recommendWith(new GoalAnalysis(goal, tutor, population, options.nowMs ?? 0, options.workOnGoal), options.continuedRecommendations === true);
}

export function recommendWith(a: GoalAnalysis, continued: boolean): Recommendation {
  // A goal over by its work cap (status complete_max_work) is ready like a complete one.
  if (a.complete() || a.workCapped()) {
    if (!continued) return { module_ids: [], status: "ready", stuck: false };
    const c = continuedPractice(a);
    return { module_ids: c.module_ids, status: "ready", stuck: false, ...(c.justification ? { justification: c.justification } : {}) };
  }
  const stuck = a.stuckObjective() !== undefined;
  const ranked = rankObjectives(a);
  let picked: ReturnType<typeof choose>;
  for (const k of ranked) {
    picked = choose(a, k);
    if (picked) break;
  }
  if (!picked) return { module_ids: [], status: "in progress", stuck };
  const list = new ModuleList(a.tutor);
  list.add(picked.module);
  // The rest of the current objective, then the next objectives by worth, then its instruction.
  for (const m of rankAssessments(a, picked.objective, picked.intent)) list.add(m);
  for (const k of ranked) if (k !== picked.objective) list.addBest(a, k);
  for (const m of a.goal.instruct[picked.objective] ?? []) list.add(m);
  const out: Recommendation = { module_ids: list.ids, status: "in progress", stuck };
  if (list.ids[0] === picked.module) out.justification = justify(a, picked.target, picked.objective, picked.intent);
  return out;
}

class ModuleList {
  readonly ids: string[] = [];
  private readonly seen = new Set<string>();
  private readonly justAnswered: string | undefined;
  constructor(tutor: TutorState) {
    this.justAnswered = tutor.recent[0];
  }
  add(m: string): void {
    if (this.ids.length >= POLICY.maxModules || this.seen.has(m) || m === this.justAnswered) return;
    this.seen.add(m);
    this.ids.push(m);
  }
  addBest(a: GoalAnalysis, k: number): void {
    for (const m of rankAssessments(a, k, "focused_practice").slice(0, 2)) this.add(m);
  }
}

function justify(a: GoalAnalysis, target: number, current: number, intent: Justification["intent"]): Justification {
  const t = a.goal.targets[target];
  // For a module target: the module's objective that needs the current one.
  const targetObjective = t?.objectives.find((o) => a.ancestors(o).has(current)) ?? t?.objectives[0] ?? current;
  const j: Justification = {
    current_learning_objective_id: a.label(current),
    target_learning_objective_id: a.label(targetObjective),
    remedial: !a.goal.isTarget[current],
    intent,
  };
  if (t && t.topic >= 0) j.target_topic_id = a.goal.topics[t.topic]?.id;
  return j;
}

/** After completion, with continued_recommendations: varied practice on the targets, least certain first. */
function continuedPractice(a: GoalAnalysis): { module_ids: string[]; justification?: Justification } {
  const g = a.goal;
  const objs = [...g.targetObjectives].sort((x, y) => a.known(x) - a.known(y) || x - y);
  const lastObjs = new Set(a.tutor.lastObjectives);
  const first = objs.find((o) => !lastObjs.has(a.label(o)) && (g.assess[o] ?? []).length) ?? objs.find((o) => (g.assess[o] ?? []).length);
  const order = first === undefined ? objs : [first, ...objs.filter((o) => o !== first)];
  const list = new ModuleList(a.tutor);
  for (const o of order) for (const m of rankAssessments(a, o, "continued_practice").slice(0, 3)) list.add(m);
  for (const o of order) for (const p of g.prereqs[o] ?? []) list.addBest(a, p);
  const top = list.ids[0];
  if (top === undefined) return { module_ids: list.ids };
  const cur = order.find((o) => (g.assess[o] ?? []).includes(top)) ?? order[0] ?? 0;
  const ti = Math.max(
    0,
    g.targets.findIndex((t) => t.objectives.includes(cur)),
  );
  return { module_ids: list.ids, justification: justify(a, ti, cur, allowed(a, "continued_practice")) };
}
