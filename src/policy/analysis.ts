/**
 * One reading of a goal for a learner, shared by `recommend` and `goalStatus` so that `ready` ⇔
 * `complete` and `stuck` ⇔ `struggling` by construction: the learner's evidence read with the
 * population's rates (src/tracing/reading.ts), the scope's beliefs (src/tracing/beliefs.ts), and the
 * goal's criteria on them (docs/recommendation.md).
 */
import { objectiveMasses, type ScopeBeliefs, scopeBeliefs } from "../tracing/beliefs";
import type { ObjectiveEvidence } from "../tracing/evidence";
import type { PopulationRates } from "../tracing/rates";
import { LearnerReading } from "../tracing/reading";
import { POLICY } from "./config";
import type { PreparedGoal, TutorState } from "./types";

export class GoalAnalysis {
  readonly reading: LearnerReading;
  #beliefs: ScopeBeliefs | undefined;
  #complete: boolean | undefined;

  constructor(
    readonly goal: PreparedGoal,
    readonly tutor: TutorState,
    readonly population: PopulationRates,
    readonly nowMs = 0,
    /** the interactions spent on the goal since its assignment, when the caller counted them (else every interaction in scope) */
    readonly workOnGoal?: number,
  ) {
    this.reading = new LearnerReading(tutor.obj, population, (label) => {
      const k = goal.local.get(label);
      return k === undefined ? [] : (goal.prereqs[k] ?? []).map((p) => goal.labels[p] as string);
    });
  }

  label(k: number): string {
    return this.goal.labels[k] as string;
  }

  evidence(k: number): ObjectiveEvidence | undefined {
    return this.tutor.obj[this.label(k)];
  }

  answers(k: number): number {
    return this.evidence(k)?.answers ?? 0;
  }

  get beliefs(): ScopeBeliefs {
    this.#beliefs ??= scopeBeliefs(
      this.goal,
      this.goal.labels.map((l) => this.reading.factor(l)),
    );
    return this.#beliefs;
  }

  /** P(the learner knows objective k now) */
  known(k: number): number {
    return this.beliefs.known[k]!;
  }

  /** The level a target must reach: the readiness level, or the goal's min_predicted_mastery when higher. */
  get level(): number {
    return Math.max(POLICY.readyLevel, this.goal.minMastery);
  }

  /**
   * The level each target must reach alone: level^(1/m) for m target objectives that must all hold
   * at once (those no other target needs). When every target is at it, their joint probability is at
   * the goal's level; at the goal's level alone, two targets at 0.96 each (jointly 0.92) would be
   * settled with the goal not complete, and nothing left to practise.
   */
  get targetLevel(): number {
    return this.level ** (1 / Math.max(1, this.goal.maximalTargets.length));
  }

  /** P(every objective of the target is known). */
  targetProbability(ti: number): number {
    return this.jointProbability(this.goal.targets[ti]?.objectives ?? []);
  }

  /**
   * P(every objective of `objs` is known): the product over those no other of them needs (knowing an
   * objective implies knowing its prerequisites, so the others add nothing).
   */
  jointProbability(objs: readonly number[]): number {
    const implied = new Set<number>();
    for (const o of objs) for (const a of this.ancestors(o)) if (a !== o) implied.add(a);
    return objs.filter((o, i) => !implied.has(o) && objs.indexOf(o) === i).reduce((p, o) => p * this.known(o), 1);
  }

  readonly #ancestorMemo = new Map<number, Set<number>>();
  /** o and its in-scope ancestors (memoized per analysis). */
  ancestors(o: number): Set<number> {
    let set = this.#ancestorMemo.get(o);
    if (!set) {
      set = new Set();
      const stack = [o];
      while (stack.length) {
        const x = stack.pop()!;
        if (set.has(x)) continue;
        set.add(x);
        stack.push(...(this.goal.prereqs[x] ?? []));
      }
      this.#ancestorMemo.set(o, set);
    }
    return set;
  }

  /** The minimum answers on a target objective before it can count: the goal's min_work_per_target, at least one on a maximal target. */
  minAnswers(k: number): number {
    return this.goal.maximalTargets.includes(k) ? Math.max(1, this.goal.minWorkPerTarget) : this.goal.minWorkPerTarget;
  }

  hasWork(ti: number): boolean {
    return (this.goal.targets[ti]?.objectives ?? []).every((o) => this.answers(o) >= this.minAnswers(o));
  }

  targetMet(ti: number): boolean {
    return this.hasWork(ti) && this.targetProbability(ti) >= this.targetLevel;
  }

  /** The goal's completion criteria: `all` = P(every target mastered) ≥ level; `average` = mean target probability ≥ min_predicted_mastery. */
  complete(): boolean {
    this.#complete ??= this.#completeNow();
    return this.#complete;
  }

  #completeNow(): boolean {
    const g = this.goal;
    if (!g.targets.length) return false;
    const met = (targets: number[], rule: "all" | "average") => {
      if (!targets.every((t) => this.hasWork(t))) return false;
      if (rule === "average") return targets.reduce((s, t) => s + this.targetProbability(t), 0) / targets.length >= g.minMastery;
      return this.jointProbability(targets.flatMap((t) => g.targets[t]?.objectives ?? [])) >= this.level;
    };
    if (g.topics.length) return g.topics.every((tp) => met(tp.targets, tp.completion));
    return met(
      g.targets.map((_, i) => i),
      g.completion,
    );
  }

  /** Targets whose criterion is not met yet (indices into goal.targets). */
  openTargets(): number[] {
    return this.goal.targets.map((_, i) => i).filter((i) => !this.targetMet(i));
  }

  /** Objectives the open targets still need, topological order. */
  neededNow(): number[] {
    const set = new Set<number>();
    for (const t of this.openTargets()) for (const o of this.goal.neededBy[t] ?? []) set.add(o);
    return [...set].sort((a, b) => a - b);
  }

  /** P(the learner cannot learn k although its prerequisites are known): more of the same work will not help. */
  blocked(k: number): number {
    return this.beliefs.blocked[k]!;
  }

  /**
   * The objective the learner is stuck on, if any: the first needed one the learner cannot learn now
   * with probability past stuckLevel (blocked on it, or a prerequisite missing) although every one
   * of its prerequisites is settled, so no remediation is left to try; and that still holds with the
   * learner as slow as the rest of its evidence plausibly allows (its speed in the slowest
   * stuckSlowTail of its posterior), so that failures a slow learner would also show do not flag it;
   * and not while k's latest steps, read alone, say at knowsLatelyLevel that the learner knows it now
   * (a stall a prerequisite learned late caused, then right answers: reading.ts `knowsLately`).
   */
  stuckObjective(): number | undefined {
    if (this.complete()) return undefined;
    return this.neededNow().find(
      (k) =>
        this.cannotLearn(k) >= POLICY.stuckLevel &&
        (this.goal.prereqs[k] ?? []).every((p) => this.known(p) >= POLICY.moveOnLevel) &&
        this.cannotLearnIfSlow(k) >= POLICY.stuckLevel &&
        this.reading.knowsLately(this.label(k)) < POLICY.knowsLatelyLevel,
    );
  }

  /** P(the learner cannot learn k now): blocked on it, or a prerequisite missing. */
  cannotLearn(k: number): number {
    return 1 - this.known(k) - this.beliefs.learnable[k]!;
  }

  /**
   * cannotLearn(k) as the stuck flag reads it: k's own evidence at the slow end of the learner's speed
   * (stuckSlowTail), and a prerequisite whose own answers settle it taken as known, so that k's
   * failures are not read as that prerequisite missing (k's failures against the prior odds made
   * most of that mass, not doubt about the prerequisite: docs/recommendation-history.md, engine8's entry).
   */
  cannotLearnIfSlow(k: number): number {
    const f = this.reading.slowFactor(this.label(k), POLICY.stuckSlowTail);
    const scope = this.beliefs.prereqKnown(k);
    const below = (this.goal.prereqs[k] ?? []).reduce((all, p, i) => all * (this.settledByOwnAnswers(p) ? 1 : scope[i]!), 1);
    const m = objectiveMasses(f, below, this.beliefs.fromAbove[k]!);
    return 1 - m.known - m.learnable;
  }

  /** Whether p's own answers alone (its prerequisites taken as known) put it at the move-on level; true without an answer (no doubt of its own). */
  settledByOwnAnswers(p: number): boolean {
    if (this.answers(p) === 0) return true;
    const f = this.reading.factor(this.label(p));
    return f.known / (f.known + f.unknown + f.blocked) >= POLICY.moveOnLevel;
  }

  /** Has the learner answered anything in scope? */
  hasEvidence(): boolean {
    return this.goal.labels.some((_, k) => this.answers(k) > 0);
  }

  /** Work spent on the goal (for max_work_on_goal): as counted by the caller, else the work share of every interaction in scope. */
  work(): number {
    return this.workOnGoal ?? this.goal.labels.reduce((s, _, k) => s + (this.evidence(k)?.work ?? 0), 0);
  }

  /** `complete_max_work`: not complete, and max_work_on_goal interactions spent. The goal is over: nothing more is recommended. */
  workCapped(): boolean {
    return this.goal.maxWork !== undefined && !this.complete() && this.work() >= this.goal.maxWork;
  }
}
