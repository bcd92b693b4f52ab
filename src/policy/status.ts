/**
 * Goal status and progress (spec 2.5, decisions.md "Learner-model outputs"), from the same analysis
 * as the recommendation: `complete` ⇔ the recommendation's `ready`, `struggling` ⇔ its `stuck`.
 */
import type { LearnerState } from "../model";
import { SERVICE_PARAMS } from "../model/service-params";
import { GoalAnalysis, type TargetWork } from "./analyze";
import { POLICY } from "./config";
import type { PolicyOptions } from "./recommend";
import { learnerPace } from "./tutor-state";
import type { GoalStatus, GoalStatusValue, PreparedGoal, TargetStatus, TargetStatusValue, TutorState } from "./types";

export function goalStatus(goal: PreparedGoal, state: LearnerState, tutor: TutorState, options: PolicyOptions = {}): GoalStatus {
  return goalStatusWith(new GoalAnalysis(goal, state, tutor, options.params ?? SERVICE_PARAMS, options.nowMs ?? 0));
}

export function goalStatusWith(a: GoalAnalysis): GoalStatus {
  const g = a.goal;
  const complete = a.complete();
  const evidence = a.hasEvidence();
  const open = complete ? [] : a.openWork();
  const chosen = a.choose(open);
  const stuck = chosen ? a.stuckOnPath(chosen) : false;

  let status: GoalStatusValue;
  if (complete) status = "complete";
  else if (g.maxWork !== undefined && a.work() >= g.maxWork) status = "complete_max_work";
  else if (!evidence) status = "no_work";
  else if (stuck) status = "struggling";
  else status = "in_progress";

  const targets: TargetStatus[] = g.targets.map((t, ti) => {
    let s: TargetStatusValue;
    const met = a.targetMet(ti);
    if (met) s = "complete";
    else if (!evidence) s = "no_work";
    else if (open.some((w) => w.target === ti && a.stuckOnPath(w))) s = "struggling";
    else s = "in_progress";
    const entry: TargetStatus = t.kind === "module" ? { module_id: t.id, status: s, progress: 0 } : { target_id: t.id, status: s, progress: 0 };
    entry.progress = round3(met ? 1 : a.targetProgress(ti));
    return entry;
  });

  let progress = 1;
  if (!complete) {
    progress = targets.length ? targets.reduce((s, t) => s + t.progress, 0) / targets.length : 0;
    progress = Math.min(0.99, progress);
  }
  const out: GoalStatus = {
    status,
    progress: round3(progress),
    work_remaining: complete ? 0 : estimateWork(a, open, evidence),
    targets,
  };
  if (g.topics.length) {
    out.topic_work_remaining = g.topics.map((tp) => {
      const topicOpen = open.filter((w) => tp.targets.includes(w.target));
      return { topic_id: tp.id, min_work_remaining: -1, average_work_remaining: complete || !topicOpen.length ? 0 : estimateWork(a, topicOpen, evidence) };
    });
  }
  return out;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * work_remaining: expected further assessing items until the criteria are met, capped at 30; -1
 * without any graded answer in scope. Sum over the objectives still on the way (the open targets'
 * paths and the prerequisites of path objectives not yet established) of: the consecutive correct
 * answers the model needs to reach the criterion (run forward), divided by the expected success
 * rate once known, plus, weighted by how likely the objective is still unknown, the learner's
 * expected learning time (its pace).
 */
export function estimateWork(a: GoalAnalysis, open: readonly TargetWork[], evidence: boolean): number {
  if (!evidence) return -1;
  if (!open.length) return a.complete() ? 0 : -1;
  const cap = POLICY.maxWorkRemaining;
  const L = learnerPace(a.tutor);
  const seen = new Set<number>();
  let total = 0;
  let assessable = true;
  const add = (k: number, criterion: "met" | "established") => {
    if (seen.has(k) || total >= cap) return;
    seen.add(k);
    if (!(a.goal.assess[k] ?? []).length) {
      // A target without assessing atoms can never show mastery: the model cannot say.
      if (a.goal.isTarget[k]) assessable = false;
      return;
    }
    if (criterion === "met" ? a.met(k) : a.established(k)) return;
    const demo = a.demonstrationsNeeded(k, criterion);
    // An introduce goal's targets are new material: unknown until the learner answers them.
    const u = a.goal.behavior === "introduce" && a.goal.isTarget[k] && a.belief(k).n === 0 ? 1 : unknownness(a, k);
    total += demo / 0.9 + u * L;
  };
  // The prerequisites not yet implied are checked: one level below the path in practice and review
  // goals (deeper only after failures), every level in introduce goals (a new objective's
  // prerequisites are all checked first).
  const deep = a.goal.behavior === "introduce";
  const addPending = (k: number) => {
    for (const p of a.goal.prereqs[k] ?? []) {
      if (total >= cap || seen.has(p) || a.implied(p)) continue;
      add(p, "established");
      if (deep) addPending(p);
    }
  };
  for (const w of open) {
    for (let i = w.path.length - 1; i >= 0; i--) {
      const k = (w.path[i] as { objective: number }).objective;
      add(k, a.goal.isTarget[k] ? "met" : "established");
      addPending(k);
    }
  }
  if (!assessable) return -1;
  return Math.max(open.length ? 1 : 0, Math.min(cap, Math.round(total)));
}

/** How likely the objective still has to be learned: 1 at predicted mastery ≤ 0.4, 0 at ≥ 0.75 (linear between). */
export function unknownness(a: GoalAnalysis, k: number): number {
  const p = a.belief(k).p;
  return Math.max(0, Math.min(1, (0.75 - p) / 0.35));
}
