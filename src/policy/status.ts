/**
 * Goal status and progress (spec 2.5; docs/recommendation.md "Decisions"), from the same analysis
 * as the recommendation: `complete` or `complete_max_work` ⇔ the recommendation's `ready`,
 * `struggling` ⇔ its `stuck`. A goal over by its work cap keeps its progress and work remaining
 * (what mastering the targets would still take). It reads only the evidence, never who chose the
 * work: a learner the partner sequences gets the same status as one who follows the recommendations.
 */
import { logit } from "../model/math";
import { effectiveRate } from "../tracing/episode";
import type { PopulationRates } from "../tracing/rates";
import { objectiveRates } from "../tracing/rates";
import { GoalAnalysis } from "./analysis";
import { POLICY } from "./config";
import type { PolicyOptions } from "./recommend";
import type { GoalStatus, GoalStatusValue, PreparedGoal, TargetStatus, TargetStatusValue, TutorState } from "./types";

export function goalStatus(goal: PreparedGoal, tutor: TutorState, population: PopulationRates, options: PolicyOptions = {}): GoalStatus {
  return goalStatusWith(new GoalAnalysis(goal, tutor, population, options.nowMs ?? 0, options.workOnGoal));
}

/**
 * Whether the goal is complete and its work remaining, exactly as goalStatus says them, without the
 * per-target statuses and progress, the stuck objective and the topics (the readiness forecast needs
 * only these two; about half the work of goalStatus on a 2,000-objective goal).
 */
export function goalCompletion(goal: PreparedGoal, tutor: TutorState, population: PopulationRates, options: PolicyOptions = {}) {
  const a = new GoalAnalysis(goal, tutor, population, options.nowMs ?? 0);
  const complete = a.complete();
  return { complete, work_remaining: complete ? 0 : estimateWork(a, a.openTargets(), a.hasEvidence()) };
}

export function goalStatusWith(a: GoalAnalysis): GoalStatus {
  const g = a.goal;
  const complete = a.complete();
  const evidence = a.hasEvidence();
  const stuckOn = a.stuckObjective();

  let status: GoalStatusValue;
  if (complete) status = "complete";
  else if (a.workCapped()) status = "complete_max_work";
  else if (!evidence) status = "no_work";
  else if (stuckOn !== undefined) status = "struggling";
  else status = "in_progress";

  const targets: TargetStatus[] = g.targets.map((t, ti) => {
    const met = complete || a.targetMet(ti);
    let s: TargetStatusValue;
    if (met) s = "complete";
    else if (!evidence) s = "no_work";
    else if (stuckOn !== undefined && g.neededBy[ti]?.includes(stuckOn)) s = "struggling";
    else s = "in_progress";
    const progress = round3(met ? 1 : evidence ? targetProgress(a, ti) : 0);
    return t.kind === "module" ? { module_id: t.id, status: s, progress } : { target_id: t.id, status: s, progress };
  });

  const progress = complete ? 1 : Math.min(0.99, targets.length ? targets.reduce((s, t) => s + t.progress, 0) / targets.length : 0);
  const open = a.openTargets();
  const out: GoalStatus = {
    status,
    progress: round3(progress),
    work_remaining: complete ? 0 : estimateWork(a, open, evidence),
    targets,
  };
  if (g.topics.length) {
    out.topic_work_remaining = g.topics.map((tp) => {
      const topicOpen = open.filter((t) => tp.targets.includes(t));
      return { topic_id: tp.id, min_work_remaining: -1, average_work_remaining: complete || !topicOpen.length ? 0 : estimateWork(a, topicOpen, evidence) };
    });
  }
  return out;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The level objective k must reach: a target's readiness level, moveOnLevel below the targets. */
const levelOf = (a: GoalAnalysis, k: number) => (a.goal.isTarget[k] ? a.targetLevel : POLICY.moveOnLevel);

/** The share of the way: over the objectives the target needs, how close each is to its level (0.99 at most until met). */
function targetProgress(a: GoalAnalysis, ti: number): number {
  const needed = a.goal.neededBy[ti] ?? [];
  if (!needed.length) return 0;
  const sum = needed.reduce((s, k) => s + Math.min(1, a.known(k) / levelOf(a, k)), 0);
  return Math.min(0.99, sum / needed.length);
}

/**
 * work_remaining: the expected further assessing items until the criteria are met, capped at 30; -1
 * without any graded answer in scope, or when a target has no assessing atom. Over the objectives the
 * open targets still need: the opportunities an unknown objective takes to learn (1 / the learner's
 * learning rate, weighted by how likely it is still to be learned) plus the right answers that bring
 * its probability to its level (each multiplies the odds by (1 − slip) / guess), and the cap weighted
 * by how likely the learner cannot learn it at all.
 */
export function estimateWork(a: GoalAnalysis, open: readonly number[], evidence: boolean): number {
  if (!evidence) return -1;
  if (!open.length) return a.complete() ? 0 : -1;
  const g = a.goal;
  if (open.some((t) => (g.targets[t]?.objectives ?? []).some((o) => !(g.assess[o] ?? []).length))) return -1;
  const needed = new Set<number>();
  for (const t of open) for (const k of g.neededBy[t] ?? []) needed.add(k);
  const speed = a.reading.typicalSpeed;
  let total = 0;
  for (const k of needed) {
    if (!(g.assess[k] ?? []).length) continue;
    const level = levelOf(a, k);
    const p = a.known(k);
    const extra = g.isTarget[k] ? Math.max(0, a.minAnswers(k) - a.answers(k)) : 0;
    if (p >= level) {
      total += extra;
      continue;
    }
    const r = objectiveRates(a.population, a.label(k));
    const learnable = a.beliefs.learnable[k]!;
    // Learning takes one move, or two through knowing part of it (src/tracing/episode.ts), each at the learn rate.
    const learning = ((1 + r.gradual) * learnable) / Math.max(0.02, effectiveRate(r.learn, speed));
    // A learner who may be unable to learn it (blocked) needs more than any estimate: the cap, weighted.
    total += a.blocked(k) * POLICY.maxWorkRemaining;
    const perRight = Math.log((1 - r.slip) / r.guess);
    const confirm = Math.max(0, Math.ceil((logit(level) - logit(Math.max(p, 0.5))) / perRight));
    total += learning + Math.max(confirm, extra);
  }
  return Math.max(1, Math.min(POLICY.maxWorkRemaining, Math.round(total)));
}
