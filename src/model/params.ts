/**
 * Model parameters. Plain JSON: produced offline by `calibrate`, loaded by the Durable Object.
 */

/** Hyper-parameters of the Gaussian (Glicko/ADF-like) ability filter. */
export interface FilterParams {
  /** Prior variance of the global (cross-objective) ability. */
  priorVarGlobal: number;
  /** Prior variance of each per-objective ability offset. */
  priorVarObjective: number;
  /** Process noise added to the global ability variance after each graded event. */
  noiseGlobal: number;
  /** Process noise added to an objective's variance after each graded event on it (learning drift). */
  noiseObjective: number;
  /** Forgetting: extra variance per day without practice of an objective (capped at the prior variance). */
  forgetVarPerDay: number;
  /** Forgetting: half-life (days) of the decay of an objective's mean toward the prior; 0 = no decay. */
  forgetHalfLifeDays: number;
  /** Learning-opportunity gain added to an objective's mean by an ungraded (instructional) event. */
  ungradedGain: number;
}

/** Prerequisite-graph propagation strengths (fractions of an objective's mean shift). */
export interface GraphParams {
  /** Shift passed on in the "strong" direction: success -> prerequisites, failure -> dependents. */
  strong: number;
  /** Shift passed on in the "weak" direction: failure -> prerequisites, success -> dependents. */
  weak: number;
}

/**
 * Per-item entry: [easiness weight of the predictor, filter difficulty, observations (training +
 * online), cumulative online shift (bounded by refine.maxShift)].
 */
export type ItemEntry = [easiness: number, difficulty: number, count: number, shift: number];

/**
 * Per-objective entry: [easiness, weight on log(1+wins), weight on log(1+fails),
 * filter difficulty of an average item of the objective].
 */
export type ObjectiveEntry = [easiness: number, winWeight: number, failWeight: number, difficulty: number];

export interface ModelParams {
  version: 1;
  /** Names of the dense features, in order (see features.ts); `dense` holds their weights. */
  featureNames: string[];
  dense: number[];
  items: Record<string, ItemEntry>;
  objectives: Record<string, ObjectiveEntry>;
  /** Filter difficulty used when neither the item nor any of its objectives is known. */
  globalDifficulty: number;
  filter: FilterParams;
  graph: GraphParams;
  /** Online item refinement: step size and the maximum total drift from the calibrated value. */
  refine: { step: number; maxShift: number };
  /** Free-form record of how the parameters were fitted (hyper-parameters chosen, sizes). */
  meta: Record<string, number | string>;
}

export const DEFAULT_FILTER: FilterParams = {
  priorVarGlobal: 0.6,
  priorVarObjective: 0.6,
  noiseGlobal: 0.001,
  noiseObjective: 0.01,
  forgetVarPerDay: 0.01,
  forgetHalfLifeDays: 0,
  ungradedGain: 0.05,
};

export const DEFAULT_GRAPH: GraphParams = { strong: 0.3, weak: 0.1 };

/** Maximum number of distinct items whose per-item counters a learner state remembers. */
export const ITEM_MEMORY = 64;

/** Decay factors of the exponentially weighted correctness averages. */
export const EMA_FAST = 0.6;
export const EMA_SLOW = 0.9;
/** Decay factor of the exponentially weighted filter residual. */
export const EMA_RESIDUAL = 0.8;
/** Time constant of the time-decayed counts (1 day). */
export const DECAY_TAU_MS = 86_400_000;

/** Throws if `params` was calibrated for a different feature layout than this code computes. */
export function assertCompatibleParams(params: ModelParams, featureNames: readonly string[]): void {
  if (params.version !== 1) throw new Error(`unsupported ModelParams version ${String(params.version)}`);
  const ok =
    params.featureNames.length === featureNames.length &&
    params.featureNames.every((n, i) => n === featureNames[i]) &&
    params.dense.length === featureNames.length;
  if (!ok) throw new Error("ModelParams feature layout does not match this model code; re-run calibrate");
}
