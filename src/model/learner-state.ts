/**
 * Learner state: plain JSON, bounded size (one fixed-size record per objective touched, plus a
 * capped table of recently attempted items). Deterministic updates live in update.ts.
 */
import type { ModelParams } from "./params";

/** Fixed-size record of what the model believes about one objective (or the global ability). */
export interface ObjectiveState {
  /** Mean of the Gaussian belief on ability (logit scale; per objective it is an offset to the global ability). */
  mu: number;
  /** Variance of that belief. */
  v: number;
  /** Graded attempts. */
  n: number;
  /** Correct graded attempts. */
  w: number;
  /** Ungraded (instructional) learning opportunities. */
  u: number;
  /** Exponentially weighted average of (2·correct − 1), fast and slow decay. */
  ef: number;
  es: number;
  /** Outcome of the last graded attempt: 1 correct, −1 wrong, 0 none. */
  last: number;
  /** Signed streak: +k after k correct in a row, −k after k wrong in a row. */
  streak: number;
  /** Time (ms) of the last event on it; 0 if unknown. */
  t: number;
  /** Exponentially weighted average of the filter's residual (correct − predicted). */
  r: number;
  /**
   * Time-decayed graded attempts and wins (time constant DECAY_TAU_MS, as of time `t`): a bounded stand-in
   * for DAS3H-style time-window counts. Stay 0 when timestamps are unknown.
   */
  da: number;
  dw: number;
  /** Learner event counter (LearnerState.seq) at the last event on it; 0 if none. */
  q: number;
}

/** Per-item counters: [attempts, wins, sequence number of last attempt]. */
export type ItemCounters = [attempts: number, wins: number, lastSeq: number];

export interface LearnerState {
  version: 1;
  /** Number of events applied (graded + ungraded). */
  seq: number;
  global: ObjectiveState;
  objectives: Record<string, ObjectiveState>;
  /** At most ITEM_MEMORY entries; the least recently attempted is evicted. */
  items: Record<string, ItemCounters>;
  itemCount: number;
}

export function newObjectiveState(variance: number): ObjectiveState {
  return { mu: 0, v: variance, n: 0, w: 0, u: 0, ef: 0, es: 0, last: 0, streak: 0, t: 0, r: 0, da: 0, dw: 0, q: 0 };
}

/** The objective's record, created with the prior variance on first touch. */
export function objectiveOf(state: LearnerState, objective: string, priorVariance: number): ObjectiveState {
  let o = state.objectives[objective];
  if (!o) {
    o = newObjectiveState(priorVariance);
    state.objectives[objective] = o;
  }
  return o;
}

export function initialLearnerState(params?: Pick<ModelParams, "filter">): LearnerState {
  const v = params ? params.filter.priorVarGlobal : 0.6;
  return { version: 1, seq: 0, global: newObjectiveState(v), objectives: {}, items: {}, itemCount: 0 };
}
