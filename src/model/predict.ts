/** Prediction of correctness and per-objective proficiency summaries. Pure, read-only on the state. */
import { encodeFeatures, type ItemRef, NUM_FEATURES } from "./features";
import type { LearnerState } from "./learner-state";
import { expectedSigmoid, normalQuantile, sigmoid } from "./math";
import type { ModelParams } from "./params";

const scratch = new Float64Array(NUM_FEATURES);

/** Logit of P(correct) for the item given the learner state (before the answer is seen). */
export function predictLogit(state: LearnerState, params: ModelParams, item: ItemRef, timeMs = 0): number {
  encodeFeatures(state, params, item, timeMs, scratch);
  const w = params.dense;
  let z = 0;
  for (let i = 0; i < NUM_FEATURES; i++) z += (w[i] ?? 0) * scratch[i]!;
  const it = params.items[item.itemKey];
  if (it) z += it[0];
  const seen = item.objectives.length > 1 ? new Set<string>() : undefined;
  for (const k of item.objectives) {
    if (seen) {
      if (seen.has(k)) continue;
      seen.add(k);
    }
    const e = params.objectives[k];
    if (!e) continue;
    const o = state.objectives[k];
    z += e[0];
    if (o) z += e[1] * Math.log1p(o.w) + e[2] * Math.log1p(o.n - o.w);
  }
  return z;
}

/** P(correct) for the item given the learner state. */
export function predictCorrect(state: LearnerState, params: ModelParams, item: ItemRef, timeMs = 0): number {
  return sigmoid(predictLogit(state, params, item, timeMs));
}

export interface Proficiency {
  objective: string;
  /** Mean ability on the objective (global ability + objective offset), logit scale. */
  mean: number;
  variance: number;
  /** Expected P(correct) on an item of average difficulty for the objective (uncertainty-averaged). */
  pCorrectAverageItem: number;
  level: number;
  /** Central credible interval of the ability at `level`, and the matching P(correct) on an average item. */
  lower: number;
  upper: number;
  pLower: number;
  pUpper: number;
  attempts: number;
  correct: number;
}

/** Proficiency belief on one objective, with a central interval at `level` (e.g. 0.9). */
export function proficiency(state: LearnerState, params: ModelParams, objective: string, level = 0.9): Proficiency {
  const o = state.objectives[objective];
  const mean = state.global.mu + (o ? o.mu : 0);
  const variance = state.global.v + (o ? o.v : params.filter.priorVarObjective);
  const entry = params.objectives[objective];
  const d = entry ? entry[3] : params.globalDifficulty;
  const q = normalQuantile(0.5 + Math.min(0.999999, Math.max(0, level)) / 2);
  const sd = Math.sqrt(variance);
  const lower = mean - q * sd;
  const upper = mean + q * sd;
  return {
    objective,
    mean,
    variance,
    pCorrectAverageItem: expectedSigmoid(mean - d, variance),
    level,
    lower,
    upper,
    pLower: sigmoid(lower - d),
    pUpper: sigmoid(upper - d),
    attempts: o ? o.n : 0,
    correct: o ? o.w : 0,
  };
}
