/**
 * Online, deterministic state updates. O(#objectives of the item (+ their graph neighbours)) per event,
 * independent of history length. Updates mutate the given state in place and return it.
 */
import { decayTo, filterLogit, type ItemRef, itemDifficulty } from "./features";
import { type ObjectiveShift, type PrereqGraph, propagate } from "./graph-propagation";
import { recencyOf } from "./item-recency";
import { type LearnerState, type ObjectiveState, objectiveOf } from "./learner-state";
import { expectedSigmoid, uniq } from "./math";
import { EMA_FAST, EMA_RESIDUAL, EMA_SLOW, ITEM_MEMORY, type ModelParams } from "./params";

export interface GradedEvent extends ItemRef {
  correct: boolean | number;
  /** Event time in ms since epoch; 0 (or absent) = unknown. */
  timeMs?: number;
}

export type UngradedEvent = ItemRef & { timeMs?: number };

export type LearnerEvent = (GradedEvent & { kind: "graded" }) | (UngradedEvent & { kind: "ungraded" });

const DAY_MS = 86_400_000;

/** 1 for a right answer (true or 1), else 0. */
export function outcome(correct: boolean | number): 0 | 1 {
  return correct === true || correct === 1 ? 1 : 0;
}

/** Forgetting: variance grows and the mean decays toward the prior with time since last practice. */
function forget(o: ObjectiveState, params: ModelParams, timeMs: number): void {
  if (!(timeMs > 0 && o.t > 0 && timeMs > o.t)) return;
  const days = (timeMs - o.t) / DAY_MS;
  const f = params.filter;
  const pv = f.priorVarObjective;
  if (o.v < pv) o.v = Math.min(pv, o.v + f.forgetVarPerDay * days);
  if (f.forgetHalfLifeDays > 0) o.mu *= 0.5 ** (days / f.forgetHalfLifeDays);
}

/**
 * Moves the objective's clock forward to `timeMs` (decaying its time-decayed counts). Never back: an
 * event older than the last one (late delivery) must not make a later event forget the same interval twice.
 */
function advanceTime(o: ObjectiveState, timeMs: number): void {
  if (!(timeMs > o.t)) return;
  const f = decayTo(o, timeMs);
  o.da *= f;
  o.dw *= f;
  o.t = timeMs;
}

function count(o: ObjectiveState, y: number, p: number, timeMs: number, seq: number): void {
  o.n += 1;
  o.r = EMA_RESIDUAL * o.r + (1 - EMA_RESIDUAL) * (y - p);
  o.q = seq;
  if (timeMs > 0) {
    advanceTime(o, timeMs);
    o.da += 1;
    o.dw += y;
  }
  o.w += y;
  const s = 2 * y - 1;
  o.ef = EMA_FAST * o.ef + (1 - EMA_FAST) * s;
  o.es = EMA_SLOW * o.es + (1 - EMA_SLOW) * s;
  o.last = s;
  o.streak = s > 0 ? (o.streak > 0 ? o.streak + 1 : 1) : o.streak < 0 ? o.streak - 1 : -1;
}

function touchItem(state: LearnerState, key: string, y: number): void {
  const recency = recencyOf(state.items);
  const it = state.items[key];
  recency.delete(key);
  recency.set(key, true);
  if (it) {
    it[0] += 1;
    it[1] += y;
    it[2] = state.seq;
    return;
  }
  if (state.itemCount >= ITEM_MEMORY) {
    // the least recently attempted (the key just added is the most recent)
    const oldKey = recency.keys().next().value;
    if (oldKey !== undefined && oldKey !== key) {
      recency.delete(oldKey);
      delete state.items[oldKey];
      state.itemCount -= 1;
    }
  }
  state.items[key] = [1, y, state.seq];
  state.itemCount += 1;
}

/** Applies a graded answer. Returns the filter's prediction made *before* the update (useful for logging). */
export function applyGraded(state: LearnerState, params: ModelParams, graph: PrereqGraph | undefined, ev: GradedEvent): number {
  const y = outcome(ev.correct);
  const timeMs = ev.timeMs ?? 0;
  const objs = uniq(ev.objectives);
  const item: ItemRef = { itemKey: ev.itemKey, objectives: objs };
  const f = params.filter;
  state.seq += 1;
  const os: ObjectiveState[] = [];
  for (const k of objs) {
    const o = objectiveOf(state, k, f.priorVarObjective);
    forget(o, params, timeMs);
    os.push(o);
  }
  // Gaussian filter step (Laplace / assumed-density filtering on a logistic likelihood).
  const d = itemDifficulty(params, item);
  const { z, s2 } = filterLogit(state, params, item, d);
  const p = expectedSigmoid(z, s2);
  const g = y - p;
  const h = p * (1 - p);
  const denom = 1 + s2 * h;
  const gl = state.global;
  gl.mu += (gl.v * g) / denom;
  gl.v = Math.max(1e-6, gl.v - (gl.v * gl.v * h) / denom) + f.noiseGlobal;
  const m = os.length || 1;
  const shifts: ObjectiveShift[] = [];
  for (let i = 0; i < os.length; i++) {
    const o = os[i]!;
    const va = o.v / m;
    const dMu = (va * g) / denom;
    const vPost = Math.max(1e-6, o.v - (va * va * h) / denom);
    shifts.push({ objective: objs[i]!, dMu, varRatio: vPost / o.v });
    o.mu += dMu;
    o.v = Math.min(f.priorVarObjective, vPost + f.noiseObjective);
    count(o, y, p, timeMs, state.seq);
  }
  count(gl, y, p, timeMs, state.seq);
  touchItem(state, ev.itemKey, y);
  if (graph) propagate(state, params, graph, shifts, new Set(objs));
  return p;
}

/** Applies an ungraded (instructional) event: a learning opportunity, no correctness evidence. */
export function applyUngraded(state: LearnerState, params: ModelParams, graph: PrereqGraph | undefined, ev: UngradedEvent): void {
  const timeMs = ev.timeMs ?? 0;
  const objs = uniq(ev.objectives);
  const f = params.filter;
  state.seq += 1;
  const m = objs.length || 1;
  const shifts: ObjectiveShift[] = [];
  for (const k of objs) {
    const o = objectiveOf(state, k, f.priorVarObjective);
    forget(o, params, timeMs);
    const dMu = f.ungradedGain / m;
    o.mu += dMu;
    o.u += 1;
    o.q = state.seq;
    advanceTime(o, timeMs);
    shifts.push({ objective: k, dMu, varRatio: 1 });
  }
  state.global.u += 1;
  advanceTime(state.global, timeMs);
  if (graph) propagate(state, params, graph, shifts, new Set(objs));
}

export function applyEvent(state: LearnerState, params: ModelParams, graph: PrereqGraph | undefined, ev: LearnerEvent): void {
  if (ev.kind === "graded") applyGraded(state, params, graph, ev);
  else applyUngraded(state, params, graph, ev);
}
