/**
 * The recommendation: module_ids (best first), ready / in progress, stuck and the top module's
 * justification. Pure; see docs/recommendation.md for the rules.
 */
import type { LearnerState, ModelParams } from "../model";
import { predictCorrect } from "../model";
import { SERVICE_PARAMS } from "../model/service-params";
import { GoalAnalysis, type PathStep, type TargetWork } from "./analyze";
import { POLICY } from "./config";
import { INTENTS_BY_BEHAVIOR, type Intent, type Justification, type PreparedGoal, type Recommendation, type TutorState } from "./types";

export interface PolicyOptions {
  /** model parameters the learner state was computed with (default SERVICE_PARAMS) */
  params?: ModelParams;
  /** request time (ms); 0 = unknown */
  nowMs?: number;
}

export interface RecommendOptions extends PolicyOptions {
  continuedRecommendations?: boolean;
}

/** Target success probability of a chosen item by intent ("useful difficulty"). */
const TARGET_P: Record<Intent, number> = {
  diagnostic: 0.5,
  introduction: 0.6,
  focused_practice: 0.65,
  instruction_intervention: 0.65,
  mastery_demonstration: 0.75,
  continued_practice: 0.75,
  interleaving: 0.7,
};

export function recommend(goal: PreparedGoal, state: LearnerState, tutor: TutorState, options: RecommendOptions = {}): Recommendation {
  const a = new GoalAnalysis(goal, state, tutor, options.params ?? SERVICE_PARAMS, options.nowMs ?? 0);
  return recommendWith(a, options.continuedRecommendations === true);
}

export function recommendWith(a: GoalAnalysis, continued: boolean): Recommendation {
  if (a.complete()) {
    if (!continued) return { module_ids: [], status: "ready", stuck: false };
    const c = continuedPractice(a);
    return { module_ids: c.module_ids, status: "ready", stuck: false, ...(c.justification ? { justification: c.justification } : {}) };
  }
  const open = a.openWork();
  const work = a.choose(open);
  if (!work) return { module_ids: [], status: "in progress", stuck: false };
  const stuck = a.stuckOnPath(work);
  const picked = pickFor(a, work, stuck);
  const list = new ModuleList(a.tutor);
  if (picked) list.add(picked.module);
  // The rest of the current objective, then the next steps up the path, then the other targets' current objectives.
  const current = (work.path[work.path.length - 1] as PathStep).objective;
  for (const m of rankAssessments(a, current, picked?.intent ?? "focused_practice")) list.add(m);
  for (let i = work.path.length - 2; i >= 0; i--) list.addBest(a, (work.path[i] as PathStep).objective);
  for (const w of open) if (w !== work) list.addBest(a, (w.path[w.path.length - 1] as PathStep).objective);
  for (const w of open) if (w !== work) list.addBest(a, w.objective);
  for (const m of a.goal.instruct[current] ?? []) list.add(m);
  const out: Recommendation = { module_ids: list.ids, status: "in progress", stuck };
  if (picked && list.ids[0] === picked.module) out.justification = justify(a, work, current, picked.intent);
  else if (list.ids.length) out.justification = justify(a, work, current, allowed(a, "continued_practice"));
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
    const ranked = rankAssessments(a, k, "focused_practice");
    for (let i = 0; i < Math.min(2, ranked.length); i++) this.add(ranked[i] as string);
  }
}

interface Pick {
  module: string;
  intent: Intent;
}

/** Chooses the top module for the current objective of the path, and its intent. */
function pickFor(a: GoalAnalysis, work: TargetWork, stuck: boolean): Pick | undefined {
  const g = a.goal;
  const last = work.path[work.path.length - 1] as PathStep;
  const k = last.objective;
  const b = a.belief(k);
  const t = a.track(k);
  const justAnswered = a.tutor.recent[0];
  const prereqsReady = (g.prereqs[k] ?? []).every((p) => a.implied(p));
  // Instruction may be repeated (alternating with assessment) as long as it is not the item just done.
  const instr = (g.instruct[k] ?? []).filter((m) => m !== justAnswered);
  const assessing = rankAssessments(a, k, "focused_practice");

  // Instruction where the belief says it helps: a new objective of an introduce goal, or a shown gap
  // on an objective whose prerequisites are in place (spaced: not again within instructionSpacing answers).
  const spaced = !t || t.uAt < 0 || t.n - t.uAt >= POLICY.instructionSpacing;
  const isNew = b.n === 0 && (t?.u ?? 0) === 0;
  let instructIntent: Intent | undefined;
  if (instr.length && prereqsReady) {
    if (g.behavior === "introduce" && isNew) instructIntent = "introduction";
    else if (spaced && (a.failing(k) || stuck)) instructIntent = "instruction_intervention";
  }
  if (!assessing.length && instr.length) instructIntent ??= g.behavior === "introduce" && isNew ? "introduction" : "instruction_intervention";
  if (instructIntent) {
    const m = instr[(t?.u ?? 0) % instr.length] as string;
    return { module: m, intent: allowed(a, instructIntent) };
  }
  if (!assessing.length) return undefined;
  const intent = assessmentIntent(a, last);
  const ranked = rankAssessments(a, k, intent);
  return { module: ranked[0] as string, intent };
}

/** Intent of an assessing item on the current objective (documented rules per adaptive_behavior). */
function assessmentIntent(a: GoalAnalysis, last: PathStep): Intent {
  const k = last.objective;
  const b = a.belief(k);
  const t = a.track(k);
  switch (a.goal.behavior) {
    case "review":
      return "interleaving";
    case "introduce": {
      if ((t?.u ?? 0) > 0 && b.n < 2) return "introduction";
      if (b.n === 0 || (last.reason !== "target" && !a.failing(k) && (t?.w ?? 0) === (t?.n ?? 0))) return "diagnostic";
      return "mastery_demonstration";
    }
    default: {
      if (b.n === 0 || (last.reason !== "target" && !a.failing(k) && (t?.w ?? 0) === (t?.n ?? 0))) return "diagnostic";
      if (a.failing(k) || b.p < POLICY.weakMastery) return "focused_practice";
      return "mastery_demonstration";
    }
  }
}

/** Maps an intent to the goal's allowed set (never outside it). */
function allowed(a: GoalAnalysis, intent: Intent): Intent {
  const set = INTENTS_BY_BEHAVIOR[a.goal.behavior];
  if (set.includes(intent)) return intent;
  const fallback: Record<Intent, Intent[]> = {
    introduction: ["instruction_intervention"],
    instruction_intervention: ["instruction_intervention"],
    diagnostic: ["interleaving", "continued_practice"],
    mastery_demonstration: ["interleaving", "continued_practice"],
    focused_practice: ["mastery_demonstration", "interleaving", "continued_practice"],
    continued_practice: ["continued_practice"],
    interleaving: ["mastery_demonstration", "continued_practice"],
  };
  return fallback[intent].find((i) => set.includes(i)) ?? "continued_practice";
}

/**
 * Assessing atoms of objective k, best first: not recently answered, least attempted (spread over
 * the objective's items), then closest to the intent's target success probability (useful
 * difficulty; partner items without calibrated parameters tie), then a rotation by the event count.
 */
export function rankAssessments(a: GoalAnalysis, k: number, intent: Intent): string[] {
  const all = a.goal.assess[k] ?? [];
  if (!all.length) return [];
  const recent = a.tutor.recent;
  const justAnswered = recent[0];
  const hot = new Set(recent.slice(0, POLICY.recentItems));
  const label = a.label(k);
  const target = TARGET_P[intent];
  const rot = a.tutor.seq % all.length;
  const scored: { m: string; s: number }[] = [];
  for (let j = 0; j < all.length && scored.length < POLICY.maxCandidates; j++) {
    const i = (j + rot) % all.length;
    const m = all[i] as string;
    if (m === justAnswered) continue;
    const attempts = a.state.items[m]?.[0] ?? 0;
    const p = a.params.items[m] ? predictCorrect(a.state, a.params, { itemKey: m, objectives: [label] }, a.nowMs) : -1;
    const fit = p < 0 ? 0 : Math.abs(p - target);
    scored.push({ m, s: (hot.has(m) ? 1000 : 0) + attempts * 10 + fit + j * 1e-6 });
  }
  scored.sort((x, y) => x.s - y.s);
  return scored.map((x) => x.m);
}

function justify(a: GoalAnalysis, work: TargetWork, current: number, intent: Intent): Justification {
  const target = a.goal.targets[work.target];
  const j: Justification = {
    current_learning_objective_id: a.label(current),
    target_learning_objective_id: a.label(work.objective),
    remedial: current !== work.objective,
    intent,
  };
  if (target && target.topic >= 0) j.target_topic_id = a.goal.topics[target.topic]?.id;
  return j;
}

/** After completion, with continued_recommendations: varied practice on the targets, least certain first. */
function continuedPractice(a: GoalAnalysis): { module_ids: string[]; justification?: Justification } {
  const g = a.goal;
  const objs = [...g.targetObjectives].sort((x, y) => a.lower(x) - a.lower(y) || x - y);
  const lastObjs = new Set(a.tutor.lastObjectives);
  // interleave: do not start on the objective just practised when another is available
  const first = objs.find((o) => !lastObjs.has(a.label(o)) && (g.assess[o] ?? []).length) ?? objs.find((o) => (g.assess[o] ?? []).length);
  const list = new ModuleList(a.tutor);
  const order = first === undefined ? objs : [first, ...objs.filter((o) => o !== first)];
  for (const o of order) for (const m of rankAssessments(a, o, "continued_practice").slice(0, 3)) list.add(m);
  for (const o of order) for (const p of g.prereqs[o] ?? []) list.addBest(a, p);
  const top = list.ids[0];
  let justification: Justification | undefined;
  if (top !== undefined) {
    const cur = order.find((o) => (g.assess[o] ?? []).includes(top)) ?? order[0] ?? 0;
    const ti = g.targets.findIndex((t) => t.objectives.includes(cur));
    const target = g.targets[ti];
    justification = { current_learning_objective_id: a.label(cur), target_learning_objective_id: a.label(cur), remedial: false, intent: "continued_practice" };
    if (target && target.topic >= 0) justification.target_topic_id = g.topics[target.topic]?.id;
  }
  return { module_ids: list.ids, ...(justification ? { justification } : {}) };
}
