/**
 * Where the learner works next, and on which atom (docs/recommendation.md, "Decisions").
 *
 * Among the objectives the open targets still need, not yet settled, each is worth
 *   P(its prerequisites are known and it is not: practice there teaches)
 *   + P(it is known) × (its unsettled ancestors: a right answer there vouches for all of them),
 * the first term the learning a step buys, the second the diagnosis it saves. A novice is thus taught
 * at the frontier, an expert probed high, and an objective just learned is left as soon as practising
 * what builds on it is worth more than confirming it (its dependents' answers confirm it too). A
 * prerequisite the learner was never asked, or passed on little evidence, is probed first where
 * building on a gap there would cost more than the probe (probeFirst).
 */
import { effectiveRate } from "../tracing/episode";
import { attemptsOn, lastOutcome, TAUGHT, WRONG } from "../tracing/evidence";
import { itemRates, objectiveRates } from "../tracing/rates";
import type { GoalAnalysis } from "./analysis";
import { POLICY } from "./config";
import { INTENTS_BY_BEHAVIOR, type Intent } from "./types";

export interface Choice {
  /** local objective to work on */
  objective: number;
  /** index into goal.targets: the open target that needs it */
  target: number;
  module: string;
  intent: Intent;
}

/** Is k settled: a target at its level alone (targetLevel, with its minimum answers), another objective at moveOnLevel? */
export function settled(a: GoalAnalysis, k: number): boolean {
  if (a.goal.isTarget[k]) return a.known(k) >= a.targetLevel && a.answers(k) >= a.minAnswers(k);
  return a.known(k) >= POLICY.moveOnLevel;
}

const workable = (a: GoalAnalysis, k: number) => (a.goal.assess[k]?.length ?? 0) + (a.goal.instruct[k]?.length ?? 0) > 0;

/** The open objectives by worth, best first (ties: the lower, i.e. the prerequisite, first). */
export function rankObjectives(a: GoalAnalysis): number[] {
  const needed = a.neededNow().filter((k) => workable(a, k) && !settled(a, k));
  const open = new Set(needed);
  const b = a.beliefs;
  // Where a step can tell or teach something: the prerequisites likely known, or the objective itself
  // likely known (a probe). An objective whose prerequisites are likely missing comes last.
  const plausible = (k: number) => b.parentsKnown[k]! >= 0.5 || b.known[k]! >= 0.5;
  const worth = new Map<number, number>();
  for (const k of needed) {
    // (the ancestors are walked only where the step is plausible: the others rank last anyway, and a
    // deep chain would make this quadratic)
    if (!plausible(k)) {
      worth.set(k, -10 + b.learnable[k]!);
      continue;
    }
    let unsettledAbove = 0;
    for (const p of a.ancestors(k)) if (p !== k && open.has(p)) unsettledAbove++;
    worth.set(k, b.learnable[k]! + b.known[k]! * unsettledAbove);
  }
  const ranked = probeFirst(
    a,
    needed.sort((x, y) => worth.get(y)! - worth.get(x)! || x - y),
  );
  if (a.goal.behavior === "review" && ranked.length > 1) {
    // Interleave: not the objective just practised when another is open.
    const last = new Set(a.tutor.lastObjectives);
    const i = ranked.findIndex((k) => !last.has(a.label(k)));
    if (i > 0) ranked.unshift(...ranked.splice(i, 1));
  }
  return ranked;
}

/**
 * Probe before building: the most doubtful prerequisite of the best objective that the learner never
 * answered, or answered and is believed to know at the move-on level (where the ranking stops weighing
 * an objective below the targets), is asked once first, when building on those prerequisites while
 * one is missing would cost more than that one step: P(any of them is unknown) × the steps the best
 * objective is expected to take ((1 + gradual) × its doubt over the rate it is learned at by practice,
 * or instruction where it has some, at the learner's speed: work_remaining's learning term, which
 * counts practice alone) ≥ 1. The worth of the choice cannot see this: a class that lacks a
 * prerequisite nobody was asked, or that passed it on a lucky answer, reads its dependent's failures
 * as slow learning (src/tracing/contribute.ts), the dependent's rate collapses, its failures then say
 * little about the prerequisite, and the dependent is practised for ever
 * (docs/recommendation-history.md, "Probe before building" and "Probe what was never asked").
 */
function probeFirst(a: GoalAnalysis, ranked: number[]): number[] {
  const top = ranked[0];
  if (top === undefined) return ranked;
  let probe: number | undefined;
  let allKnown = 1;
  for (const p of a.goal.prereqs[top] ?? []) {
    if (!(a.goal.assess[p]?.length ?? 0) || (a.answers(p) > 0 && a.known(p) < POLICY.moveOnLevel)) continue;
    allKnown *= a.known(p);
    if (probe === undefined || a.known(p) < a.known(probe)) probe = p;
  }
  if (probe === undefined) return ranked;
  const rates = objectiveRates(a.population, a.label(top));
  const speed = a.reading.typicalSpeed;
  const rate = Math.max(effectiveRate(rates.learn, speed), (a.goal.instruct[top]?.length ?? 0) > 0 ? effectiveRate(rates.teach, speed) : 0);
  const stepsAhead = ((1 + rates.gradual) * (1 - a.known(top))) / Math.max(rate, 1e-6);
  if ((1 - allKnown) * stepsAhead < 1) return ranked;
  return [probe, ...ranked.filter((k) => k !== probe)];
}

export function choose(a: GoalAnalysis, objective: number): Choice | undefined {
  const g = a.goal;
  const target = a.openTargets().find((t) => g.neededBy[t]?.includes(objective)) ?? 0;
  const e = a.evidence(objective);
  const justAnswered = a.tutor.recent[0];
  const instruction = (g.instruct[objective] ?? []).filter((m) => m !== justAnswered);
  const assessing = g.assess[objective] ?? [];
  const instructIntent = instructionIntent(a, objective, instruction.length > 0, assessing.length > 0);
  if (instructIntent) {
    const taught = e ? e.steps.length - e.answers + e.foldedAnswers : 0;
    return { objective, target, module: instruction[Math.max(0, taught) % instruction.length] as string, intent: allowed(a, instructIntent) };
  }
  if (!assessing.length) return undefined;
  const intent = allowed(a, assessmentIntent(a, objective));
  return { objective, target, module: rankAssessments(a, objective, intent)[0] as string, intent };
}

/** Instruction where it teaches: after a wrong answer, the objective likely unknown though learnable, and instruction at least as good as practice. */
function instructionIntent(a: GoalAnalysis, k: number, hasInstruction: boolean, hasAssessing: boolean): Intent | undefined {
  if (!hasInstruction) return undefined;
  if (!hasAssessing) return a.answers(k) === 0 && a.goal.behavior === "introduce" ? "introduction" : "instruction_intervention";
  const e = a.evidence(k);
  if (a.goal.behavior === "introduce" && !e) return "introduction";
  // An intervention answers a shown gap: not before a wrong answer on the objective.
  if (!e || e.answers === e.right) return undefined;
  // Alternate: instruction gives no evidence, so never twice in a row.
  if (lastOutcome(e) === TAUGHT) return undefined;
  const b = a.beliefs;
  const rates = objectiveRates(a.population, a.label(k));
  const speed = a.reading.typicalSpeed;
  if (b.learnable[k]! < 0.5 || effectiveRate(rates.teach, speed) < effectiveRate(rates.learn, speed)) return undefined;
  return "instruction_intervention";
}

function assessmentIntent(a: GoalAnalysis, k: number): Intent {
  const e = a.evidence(k);
  switch (a.goal.behavior) {
    case "review":
      return "interleaving";
    case "introduce":
      if (e && e.answers < 2 && e.steps.some((s) => (s & 3) === TAUGHT)) return "introduction";
      return !e || e.answers === 0 ? "diagnostic" : "mastery_demonstration";
    default:
      if (!e || e.answers === 0) return "diagnostic";
      if (lastOutcome(e) === WRONG || a.known(k) < 0.5) return "focused_practice";
      return "mastery_demonstration";
  }
}

/** Maps an intent to the goal's allowed set (never outside it). */
export function allowed(a: GoalAnalysis, intent: Intent): Intent {
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
 * Assessing atoms of objective k, best first: not recently answered, least attempted (spread over the
 * objective's items), then for focused practice the closest to a useful success probability, for
 * everything else the most telling (lowest guess + slip: a right answer says the most), then a
 * rotation by the event count.
 */
export function rankAssessments(a: GoalAnalysis, k: number, intent: Intent): string[] {
  const all = a.goal.assess[k] ?? [];
  if (!all.length) return [];
  const recent = a.tutor.recent;
  const hot = new Set(recent.slice(0, POLICY.recentItems));
  const e = a.evidence(k);
  const o = objectiveRates(a.population, a.label(k));
  const p = a.known(k);
  const rot = a.tutor.seq % all.length;
  const scored: { m: string; s: number }[] = [];
  for (let j = 0; j < all.length && scored.length < POLICY.maxCandidates; j++) {
    const m = all[(j + rot) % all.length] as string;
    if (m === recent[0]) continue;
    const r = itemRates(a.population, m, o);
    const fit = intent === "focused_practice" ? Math.abs(p * (1 - r.slip) + (1 - p) * r.guess - POLICY.practiceSuccess) : r.guess + r.slip;
    scored.push({ m, s: (hot.has(m) ? 1000 : 0) + attemptsOn(e, m) * 10 + fit + j * 1e-6 });
  }
  scored.sort((x, y) => x.s - y.s);
  return scored.map((x) => x.m);
}
