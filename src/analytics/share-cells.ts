/**
 * The vocabulary of the predicted-score distribution (score-distribution.ts): a term, a distribution,
 * and the cells of the continuous representation of a discrete share.
 */

export interface ScoreTerm {
  /** Mean ability (logit scale). */
  mean: number;
  /** Variance shared with every other term of the same learner (global ability). */
  shared: number;
  /** Variance of the term's own part. */
  own: number;
  /** Difficulty (logit) of an item of average difficulty in the pool. */
  difficulty: number;
  /** Slope a ∈ (0, 1] of π(θ) = σ(a(θ − difficulty)). */
  slope: number;
  /** Positive weight (relative). */
  weight: number;
  /** Number of next answers the share is taken over; Infinity = the long-run share. */
  answers: number;
  /**
   * Identifies the term's ability and pool (everything but its weight) within one learner, e.g. the
   * objective id: per-term work is then done once and reused by every group (see term-nodes.ts).
   */
  id?: string;
}

export interface ShareDistribution {
  /** P(S < q) for the continuous representation of S. */
  cdf(q: number): number;
  /** Percentile at probability level c ∈ (0, 1); always in [0, 1). */
  quantile(c: number): number;
  /** E[S]. */
  mean: number;
}

/** Levels are clamped to [LEVEL_MIN, LEVEL_MAX] so that no percentile reaches 1.0 (or the bottom of the support). */
export const LEVEL_MIN = 0.001;
export const LEVEL_MAX = 0.999;

export const clampLevel = (c: number) => Math.min(LEVEL_MAX, Math.max(LEVEL_MIN, c));

/** Cell [lo, hi) of share x/n in the continuous representation. */
export function shareCell(x: number, n: number): [number, number] {
  return [Math.max(0, (x - 0.5) / n), Math.min(1, (x + 0.5) / n)];
}

/**
 * Cell of a group share s in the continuous representation with half-cell `half` = 1/(2N): [0, half) for
 * s = 0, [1 − half, 1) for s = 1, else [s − half, s + half] clipped to [half, 1 − half].
 */
export function groupCell(s: number, half: number): [number, number] {
  if (s <= 1e-9) return [0, half];
  if (s >= 1 - 1e-9) return [1 - half, 1];
  return [Math.max(half, s - half), Math.min(1 - half, s + half)];
}

/** Half a cell, 1/(2N), of a group with weights w_k (any scale) and answers n_k: N = 1/Σ ω_k²/n_k. */
export function groupHalfCell(weights: readonly number[], answers: readonly number[]): number {
  const total = weights.reduce((a, b) => a + b, 0);
  let invN = 0;
  for (const [k, w] of weights.entries()) invN += (w / total) ** 2 / Math.max(1, Math.round(answers[k] as number));
  return invN / 2;
}
