/**
 * One read-only analysis of a goal for a learner: target criteria, the current objective (walk from
 * the targets down their in-scope prerequisites), stuck, progress and work remaining. Shared by
 * `recommend` and `goalStatus` so the recommendation's ready/stuck and the status's
 * complete/struggling always agree. Lazy: only the objectives the walk visits are evaluated.
 */
import { applyGraded, initialLearnerState, type LearnerState, type ModelParams } from "../model";
import { normalQuantile } from "../model/math";
import { type Belief, belief, FRESH_ITEM } from "./belief";
import { POLICY } from "./config";
import { type KnowledgeEvidence, knownNow, LOG_ZERO, observe, upMessage } from "./knowledge";
import { learnRate } from "./tutor-state";
import type { ObjectiveTrack, PreparedGoal, TutorState } from "./types";

export type StepReason = "target" | "gap" | "check" | "reverify";

export interface PathStep {
  objective: number;
  /** why the walk went down to this objective from the previous one */
  reason: StepReason;
}

export interface TargetWork {
  /** index into goal.targets */
  target: number;
  /** the target objective (local) the path starts from */
  objective: number;
  /** from the target objective down to the current objective */
  path: PathStep[];
}

const logit = (p: number) => Math.log(p / (1 - p));
const NO_EVIDENCE: KnowledgeEvidence = { kk: 0, kl: LOG_ZERO, ku: 0, kn: 0 };
const FRESH_OBJECTIVE = "\u0000policy:objective";

export class GoalAnalysis {
  readonly zStar: number;
  readonly qReady: number;
  private readonly beliefs = new Map<number, Belief>();
  private readonly impliedMemo = new Map<number, boolean>();
  private readonly gapMemo = new Map<number, boolean>();
  private readonly belowMemo = new Map<number, PathStep[]>();
  private readonly aboveMemo = new Map<number, number>();
  private readonly aboveRawMemo = new Map<number, number>();
  private readonly messageRawMemo = new Map<number, number>();
  private readonly knownMemo = new Map<number, number>();
  private readonly lastObjectives: Set<string>;
  private priorMemo: number | undefined;

  constructor(
    readonly goal: PreparedGoal,
    readonly state: LearnerState,
    readonly tutor: TutorState,
    readonly params: ModelParams,
    readonly nowMs = 0,
  ) {
    this.zStar = logit(goal.minMastery);
    this.qReady = normalQuantile(POLICY.readyConfidence);
    this.lastObjectives = new Set(tutor.lastObjectives);
  }

  label(k: number): string {
    return this.goal.labels[k] as string;
  }

  belief(k: number): Belief {
    let b = this.beliefs.get(k);
    if (!b) {
      b = belief(this.state, this.params, this.label(k), this.nowMs);
      this.beliefs.set(k, b);
    }
    return b;
  }

  track(k: number): ObjectiveTrack | undefined {
    return this.tutor.obj[this.label(k)];
  }

  /** Lower credible bound (readyConfidence) of the predicted-mastery logit. */
  lower(k: number): number {
    const b = this.belief(k);
    return b.z - this.qReady * b.sd;
  }

  /** Cautious predicted mastery: the lower bound as a probability. */
  cautious(k: number): number {
    return 1 / (1 + Math.exp(-this.lower(k)));
  }

  /**
   * The completion criterion on one objective (docs/recommendation.md "Predicted mastery"): the
   * lower credible bound (readyConfidence) of predicted mastery clears min_predicted_mastery, and the
   * learner's own last POLICY.metStreak answers on it are correct (so a target is never declared on
   * the strength of the global ability alone), with at least min_work_per_target answers on a target.
   */
  met(k: number): boolean {
    const b = this.belief(k);
    const minWork = this.goal.isTarget[k] ? Math.max(POLICY.metStreak, this.goal.minWorkPerTarget) : POLICY.metStreak;
    return b.n >= minWork && this.streak(k) >= POLICY.metStreak && this.lower(k) >= this.zStar;
  }

  /** Correct answers in a row at the end of k's record (at most 16). */
  streak(k: number): number {
    const t = this.track(k);
    if (!t) return 0;
    let s = 0;
    while (s < Math.min(t.n, 16) && (t.o >> s) & 1) s++;
    return s;
  }

  /**
   * Evidence from above k (log): the sum of the messages of its in-scope dependents (knowledge.ts):
   * positive when a dependent was answered right (it could not be known without k), negative when
   * a dependent keeps failing where a learner knowing k would have learned it. A dependent's message
   * is weighted by the probability that its other prerequisites are known (when one of them is
   * missing, its failures say nothing about k), each judged by its own answers and the evidence
   * from above it other than that dependent's, read from a first pass without the weighting (no
   * cycle). Memoized per request; reads the objectives above k up to the targets.
   */
  private above(k: number, weighted = true): number {
    const memo = weighted ? this.aboveMemo : this.aboveRawMemo;
    const hit = memo.get(k);
    if (hit !== undefined) return hit;
    let s = 0;
    for (const d of this.goal.dependents[k] ?? []) {
      if (!weighted) {
        s += this.messageRaw(d);
        continue;
      }
      let others = 1;
      for (const p of this.goal.prereqs[d] ?? [])
        if (p !== k) others *= knownNow(this.track(p) ?? NO_EVIDENCE, this.above(p, false) - this.messageRaw(d), this.prior());
      s += upMessage(this.track(d) ?? NO_EVIDENCE, this.above(d), this.prior(), others);
    }
    memo.set(k, s);
    return s;
  }

  /** The message of d to each of its prerequisites in the first pass (not weighted by the others). */
  private messageRaw(d: number): number {
    let m = this.messageRawMemo.get(d);
    if (m === undefined) {
      m = upMessage(this.track(d) ?? NO_EVIDENCE, this.above(d, false), this.prior());
      this.messageRawMemo.set(d, m);
    }
    return m;
  }

  /**
   * Probability that this learner knows an objective before any answer on it (its prerequisites
   * known): the learner model's predicted mastery of an objective never answered (population prior
   * and the learner's global ability) read as P(correct) = π(1 − slip) + (1 − π)·guess.
   */
  prior(): number {
    if (this.priorMemo === undefined) {
      const p = belief(this.state, this.params, FRESH_OBJECTIVE, this.nowMs).p;
      this.priorMemo = Math.min(0.9, Math.max(0.1, (p - POLICY.guess) / (1 - POLICY.slip - POLICY.guess)));
    }
    return this.priorMemo;
  }

  /** Probability that the learner knows k now (its prerequisites assumed known), from its answers and those above it. */
  known(k: number): number {
    let p = this.knownMemo.get(k);
    if (p === undefined) {
      p = knownNow(this.track(k) ?? NO_EVIDENCE, this.above(k), this.prior());
      this.knownMemo.set(k, p);
    }
    return p;
  }

  /** Implied and answered (met implies answered: it needs POLICY.metStreak ≥ 1 answers). */
  established(k: number): boolean {
    return !this.unseen(k) && this.implied(k);
  }

  /**
   * Known at POLICY.knownP from its own answers or from those above it (mastery of a dependent
   * implies its prerequisites), or met.
   */
  implied(k: number): boolean {
    const memo = this.impliedMemo.get(k);
    if (memo !== undefined) return memo;
    const r = this.met(k) || this.known(k) >= POLICY.knownP;
    this.impliedMemo.set(k, r);
    return r;
  }

  /** Failing: the last answer on k was wrong and k is not established. */
  failing(k: number): boolean {
    const t = this.track(k);
    return !!t && t.n >= 1 && (t.o & 1) === 0 && !this.established(k);
  }

  /** A shown gap: k was answered wrong and is not known (implied) now. */
  shownGap(k: number): boolean {
    const t = this.track(k);
    return !!t && t.w < t.n && !this.implied(k);
  }

  /**
   * A shown gap at k or below it among the pending prerequisites: every dependent of a gap is
   * unmastered too (a learner cannot master an objective without its prerequisites), so the walk
   * goes to the gap instead of probing the objectives above it.
   */
  gapAtOrBelow(k: number): boolean {
    const memo = this.gapMemo.get(k);
    if (memo !== undefined) return memo;
    this.gapMemo.set(k, false);
    let r = this.shownGap(k);
    if (!r)
      for (const p of this.goal.prereqs[k] ?? [])
        if (!this.implied(p) && this.gapAtOrBelow(p)) {
          r = true;
          break;
        }
    this.gapMemo.set(k, r);
    return r;
  }

  /** Not yet seen: no graded answer. */
  unseen(k: number): boolean {
    return this.belief(k).n === 0;
  }

  /**
   * Wheel-spinning on k (Beck & Gong 2013): stuckOpportunities answers without a new high of the
   * belief's lower bound and the criterion not met; the episode lasts until three correct answers in
   * a row (a lucky answer does not end it).
   */
  stuckOn(k: number): boolean {
    return (this.track(k)?.sk ?? 0) === 1 && !this.met(k);
  }

  /** Walk from objective x down its in-scope prerequisites to the objective to work on now. */
  descend(x: number, reason: StepReason = "target"): PathStep[] {
    return [{ objective: x, reason }, ...this.below(x)];
  }

  /**
   * The steps of the walk below x (memoized per request). With the prerequisites of x not known at
   * POLICY.knownP ("pending"; their probability includes the evidence of x's own answers: x failing
   * where a learner knowing them would have learned it makes them pending again):
   *  1. a shown gap (answered wrong, not known now) at or below a pending prerequisite is remediated
   *     first (the walk goes straight down to it: the objectives above a gap cannot be mastered
   *     before it is);
   *  2. no pending prerequisite: x itself is the frontier (learn / demonstrate it);
   *  3. x not seen yet (or not settled either way): probe x itself (top-down: a success implies
   *     everything below it); an introduce goal checks the prerequisites of a new objective first;
   *  4. x failing: look for the gap below by bisection over the unchecked prerequisite chain;
   *  5. x in a stuck episode with its prerequisites believed known: check each prerequisite not met
   *     once more, at every re-check point (a run of failures this long outweighs a few lucky
   *     answers on them).
   */
  private below(x: number): PathStep[] {
    const memo = this.belowMemo.get(x);
    if (memo) return memo;
    const g = this.goal;
    let out: PathStep[] | undefined;
    const pending = this.pendingPrereqs(x);
    const gap = pending.find((p) => this.gapAtOrBelow(p));
    if (gap !== undefined) out = this.descend(gap, this.shownGap(gap) ? "gap" : "check");
    else if (pending.length && (this.failing(x) || (g.behavior === "introduce" && this.unseen(x)))) {
      const p = this.probe(pending[0] as number);
      // a prerequisite answered right before and doubted now (its dependent keeps failing): a re-check
      out = this.descend(p, (this.track(p)?.o ?? 0) & 1 ? "reverify" : "check");
    }
    if (!out && !pending.length && this.stuckOn(x)) {
      // Wheel-spinning on x with its prerequisites believed known: each prerequisite not met is checked
      // once more, weakest first, at each re-check point (every stuckOpportunities answers without progress).
      const since = this.track(x)?.rvSeq ?? 0;
      const unsure = (g.prereqs[x] ?? []).filter((p) => !this.met(p) && (this.track(p)?.last ?? 0) <= since);
      if (unsure.length) {
        unsure.sort((a, b) => this.known(a) - this.known(b) || b - a);
        out = this.descend(unsure[0] as number, "reverify");
      }
    }
    out ??= [];
    this.belowMemo.set(x, out);
    return out;
  }

  /**
   * In-scope prerequisites of x not implied mastered, in a stable order: shown gaps first (weakest
   * first), then the objective of the last event (continuity), then the graph's order (latest first).
   */
  private pendingPrereqs(x: number): number[] {
    const pending = (this.goal.prereqs[x] ?? []).filter((p) => !this.implied(p));
    const key = (p: number) => (this.shownGap(p) ? -3 + this.known(p) : this.gapAtOrBelow(p) ? -1 : this.lastObjectives.has(this.label(p)) ? -0.5 : 0);
    pending.sort((a, b) => key(a) - key(b) || b - a);
    return pending;
  }

  /**
   * Where to look for the gap below a failing objective: follow the chain of unchecked prerequisites
   * (weakest first) from `start` down to the first objective with evidence or without pending
   * prerequisites, and probe its middle (bisection: about log2(depth) probes find the frontier,
   * whether the learner knows little or almost everything). A probe answered well implies all below it.
   */
  private probe(start: number): number {
    const chain = [start];
    for (let c = start; this.belief(c).n === 0; ) {
      const next = this.pendingPrereqs(c)[0];
      if (next === undefined) break;
      chain.push(next);
      c = next;
    }
    return chain[Math.floor((chain.length - 1) / 2)] as number;
  }

  /** Met targets: per goal target, every objective of it meets the criterion. */
  targetMet(t: number): boolean {
    const objs = this.goal.targets[t]?.objectives ?? [];
    return objs.length > 0 && objs.every((o) => this.met(o));
  }

  /** Cautious mastery of a target (its weakest objective). */
  targetCautious(t: number): number {
    const objs = this.goal.targets[t]?.objectives ?? [];
    let m = 1;
    for (const o of objs) m = Math.min(m, this.cautious(o));
    return objs.length ? m : 0;
  }

  private groupComplete(targets: readonly number[], rule: "all" | "average"): boolean {
    if (!targets.length) return false;
    if (rule === "all") return targets.every((t) => this.targetMet(t));
    // average: the mean cautious mastery over the targets reaches the threshold; every target has the minimum evidence.
    let s = 0;
    for (const t of targets) {
      const objs = this.goal.targets[t]?.objectives ?? [];
      if (!objs.length || objs.some((o) => this.belief(o).n < Math.max(1, this.goal.minWorkPerTarget))) return false;
      s += this.targetCautious(t);
    }
    return s / targets.length >= this.goal.minMastery;
  }

  /** The goal's completion criteria (ready / complete). */
  complete(): boolean {
    const g = this.goal;
    if (g.topics.length) return g.topics.every((tp) => this.groupComplete(tp.targets, tp.completion));
    return this.groupComplete(
      g.targets.map((_, i) => i),
      g.completion,
    );
  }

  /** Interactions spent on the goal: each event's share on in-scope objectives (an item wholly in scope counts 1). */
  work(): number {
    let s = 0;
    this.forTouchedInScope((_k, t) => (s += t.f));
    return s;
  }

  /** Graded answers on in-scope objectives exist. */
  hasEvidence(): boolean {
    let any = false;
    this.forTouchedInScope((_, t) => {
      if (t.n > 0) any = true;
    });
    return any;
  }

  /** Iterates the in-scope objectives the learner touched: O(min(scope, touched)). */
  forTouchedInScope(f: (k: number, t: ObjectiveTrack) => void): void {
    const g = this.goal;
    const keys = Object.keys(this.tutor.obj);
    if (keys.length <= g.labels.length) {
      for (const key of keys) {
        const k = g.local.get(key);
        if (k !== undefined) f(k, this.tutor.obj[key] as ObjectiveTrack);
      }
    } else {
      g.labels.forEach((label, k) => {
        const t = this.tutor.obj[label];
        if (t) f(k, t);
      });
    }
  }

  /** Unmet target objectives with their paths, in goal order. */
  openWork(): TargetWork[] {
    const out: TargetWork[] = [];
    const seen = new Set<number>();
    this.goal.targets.forEach((t, ti) => {
      for (const o of t.objectives) {
        if (seen.has(o) || this.met(o)) continue;
        seen.add(o);
        out.push({ target: ti, objective: o, path: this.descend(o) });
      }
    });
    return out;
  }

  /**
   * Chooses the target path to work on. Targets that still need learning (the walk found work below
   * the target, or the target is not established yet) come before targets that only need their
   * mastery demonstrated, so that no demonstration delays learning; among them, continuity with the
   * last event, then goal order. Demonstrations alternate between targets (spacing). Review goals
   * interleave: weakest first, not the objective just practised when another is open.
   */
  choose(open: TargetWork[]): TargetWork | undefined {
    if (!open.length) return undefined;
    const lastObjs = this.lastObjectives;
    const current = (w: TargetWork) => (w.path[w.path.length - 1] as PathStep).objective;
    if (this.goal.behavior === "review") {
      const ranked = [...open].sort((a, b) => this.lower(current(a)) - this.lower(current(b)) || a.objective - b.objective);
      return ranked.find((w) => !lastObjs.has(this.label(current(w)))) ?? ranked[0];
    }
    const learning = open.filter((w) => w.path.length > 1 || !this.established(w.objective));
    if (learning.length) return learning.find((w) => lastObjs.has(this.label(current(w)))) ?? learning[0];
    return open.find((w) => !lastObjs.has(this.label(current(w)))) ?? open[0];
  }

  /** Stuck on the chosen path: the current objective wheel-spins, or the walk is only re-checking prerequisites of one that does. */
  stuckOnPath(w: TargetWork): boolean {
    const path = w.path;
    const last = path[path.length - 1] as PathStep;
    if (this.stuckOn(last.objective)) return true;
    for (let i = path.length - 1; i > 0; i--) {
      if ((path[i] as PathStep).reason !== "reverify") break;
      if (this.stuckOn((path[i - 1] as PathStep).objective)) return true;
    }
    return false;
  }

  /** Progress of one objective toward the criterion: share of the way of its lower bound from the no-evidence start to the threshold. */
  objectiveProgress(k: number): number {
    if (this.met(k)) return 1;
    const z0 = startLowerLogit(this.params);
    const span = this.zStar - z0;
    let p = span > 0 ? (this.lower(k) - z0) / span : 0;
    const minWork = Math.max(POLICY.metStreak, this.goal.minWorkPerTarget);
    p = Math.min(p, this.belief(k).n / minWork);
    return Math.max(0, Math.min(0.99, p));
  }

  targetProgress(t: number): number {
    const objs = this.goal.targets[t]?.objectives ?? [];
    if (!objs.length) return 0;
    let s = 0;
    for (const o of objs) s += this.objectiveProgress(o);
    return s / objs.length;
  }

  /**
   * Consecutive correct answers on unseen items that would bring k to `criterion` (capped): met by
   * running the learner model forward, established by running the knowledge evidence forward.
   */
  demonstrationsNeeded(k: number, criterion: "met" | "established", cap = POLICY.maxWorkRemaining): number {
    if (criterion === "met" ? this.met(k) : this.established(k)) return 0;
    if (criterion === "established") {
      const e: KnowledgeEvidence = { ...(this.track(k) ?? NO_EVIDENCE) };
      const above = this.above(k);
      const learn = learnRate(this.tutor);
      for (let i = 1; i <= cap; i++) {
        observe(e, true, learn);
        if (knownNow(e, above, this.prior()) >= POLICY.knownP) return i;
      }
      return cap;
    }
    const label = this.label(k);
    const o = this.state.objectives[label];
    const mini: LearnerState = {
      version: 1,
      seq: this.state.seq,
      global: { ...this.state.global },
      objectives: o ? { [label]: { ...o } } : {},
      items: {},
      itemCount: 0,
    };
    const streakNeeded = POLICY.metStreak - this.streak(k);
    const minN = this.goal.isTarget[k] ? Math.max(POLICY.metStreak, this.goal.minWorkPerTarget) : 1;
    for (let i = 1; i <= cap; i++) {
      applyGraded(mini, this.params, undefined, { itemKey: `${FRESH_ITEM}#${i}`, objectives: [label], correct: true, timeMs: this.nowMs });
      const b = belief(mini, this.params, label, this.nowMs);
      if (i >= streakNeeded && b.n >= minN && b.z - this.qReady * b.sd >= this.zStar) return i;
    }
    return cap;
  }
}

const startLogits = new WeakMap<ModelParams, number>();

/** Lower bound (readyConfidence) of predicted mastery for a new learner on an unseen objective. */
export function startLowerLogit(params: ModelParams): number {
  let z = startLogits.get(params);
  if (z === undefined) {
    const b = belief(initialLearnerState(params), params, "\u0000policy:none");
    z = b.z - normalQuantile(POLICY.readyConfidence) * b.sd;
    startLogits.set(params, z);
  }
  return z;
}
