/**
 * Distribution of a (weighted) share of right answers, from Gaussian ability beliefs.
 *
 * One term per objective k: ability θ_k = m_k + √c·Z + √e_k·Z_k with Z (shared by every term: the
 * global ability) and Z_k independent standard normals. The probability of a right answer on an item
 * of the objective drawn from its pool is π_k(θ) = σ(a_k·(θ − d_k)) (a_k < 1 folds the spread of item
 * difficulties in; see predicted-score.ts). The share on the objective is Y_k = X_k/n_k with
 * X_k | θ ~ Binomial(n_k, π_k(θ)) for a horizon of n_k answers, or Y_k = π_k(θ) when n_k = ∞
 * (the long-run share). The score is S = Σ ω_k Y_k with ω_k = w_k / Σ w.
 *
 * Discrete shares get a continuous representation so that percentiles are well defined and below 1:
 * X_k = x is spread uniformly over [max(0, (x − ½)/n), min(1, (x + ½)/n)) (each share sits in the
 * middle of its cell; the end cells are half cells). The C-th percentile of that representation is
 * what the model serves, and "an observed share fell below a percentile" is counted with the same
 * cells (fractional credit for the cell containing the percentile) in scripts/eval-score.ts.
 */
import { invertCdf, normalCdf, normalNodes, normalQuantile, sigmoid, binomialPmf } from "./numeric";

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
/** Largest answers count computed exactly for a single term (beyond it: the normal-approximation path). */
const EXACT_MAX_ANSWERS = 2000;
/** Nodes over the ability distribution of a single term (exact path). */
const SINGLE_NODES = 96;
/** Nodes over the shared part and over each term's own part (group path). */
const SHARED_NODES = 24;
const OWN_NODES = 16;

const clampLevel = (c: number) => Math.min(LEVEL_MAX, Math.max(LEVEL_MIN, c));

function logit(q: number): number {
  return Math.log(q / (1 - q));
}

/** Distribution of the share for one term (exact up to quadrature over the ability). */
function singleTerm(t: ScoreTerm): ShareDistribution {
  const v = Math.max(0, t.shared + t.own);
  const sd = Math.sqrt(v);
  if (!Number.isFinite(t.answers)) {
    // Long-run share: π is a monotone map of a normal ability, so its CDF is exact.
    const nodes = normalNodes(SINGLE_NODES);
    let mean = 0;
    for (const z of nodes) mean += sigmoid(t.slope * (t.mean + sd * z - t.difficulty));
    mean /= nodes.length;
    return {
      mean,
      cdf(q) {
        if (q <= 0) return 0;
        if (q >= 1) return 1;
        const theta = logit(q) / t.slope + t.difficulty;
        if (sd === 0) return t.mean < theta ? 1 : 0;
        return normalCdf((theta - t.mean) / sd);
      },
      quantile(c) {
        return sigmoid(t.slope * (t.mean + sd * normalQuantile(clampLevel(c)) - t.difficulty));
      },
    };
  }
  const n = Math.max(1, Math.round(t.answers));
  const pmf = new Float64Array(n + 1);
  const tmp = new Float64Array(n + 1);
  const nodes = sd === 0 ? Float64Array.of(0) : normalNodes(SINGLE_NODES);
  for (const z of nodes) {
    binomialPmf(n, sigmoid(t.slope * (t.mean + sd * z - t.difficulty)), tmp);
    for (let x = 0; x <= n; x++) pmf[x] = (pmf[x] as number) + (tmp[x] as number);
  }
  let mean = 0;
  for (let x = 0; x <= n; x++) {
    pmf[x] = (pmf[x] as number) / nodes.length;
    mean += (x / n) * (pmf[x] as number);
  }
  return discreteShare(pmf, n, mean);
}

/** Cell [lo, hi) of share x/n in the continuous representation. */
export function shareCell(x: number, n: number): [number, number] {
  return [Math.max(0, (x - 0.5) / n), Math.min(1, (x + 0.5) / n)];
}

/** Continuous representation of a discrete share with probabilities pmf[x] of x right answers out of n. */
export function discreteShare(pmf: Float64Array, n: number, mean: number): ShareDistribution {
  const cum = new Float64Array(n + 2); // cum[x] = P(X < x)
  for (let x = 0; x <= n; x++) cum[x + 1] = (cum[x] as number) + (pmf[x] as number);
  const total = cum[n + 1] as number;
  return {
    mean,
    cdf(q) {
      if (q <= 0) return 0;
      if (q >= 1) return 1;
      const x = Math.min(n, Math.floor(q * n + 0.5));
      const [lo, hi] = shareCell(x, n);
      return ((cum[x] as number) + (pmf[x] as number) * ((q - lo) / (hi - lo))) / total;
    },
    quantile(c) {
      const target = clampLevel(c) * total;
      let x = 0;
      while (x < n && (cum[x + 1] as number) < target) x++;
      const p = pmf[x] as number;
      const [lo, hi] = shareCell(x, n);
      if (p <= 0) return lo;
      const f = Math.min(1, Math.max(0, (target - (cum[x] as number)) / p));
      return Math.min(lo + f * (hi - lo), hi - (hi - lo) * 1e-9);
    },
  };
}

/**
 * Group path: conditional on the shared part, terms are independent; their weighted sum is
 * approximated by a normal with the exact conditional mean and variance (binomial noise and the
 * uniform spread of the cells included), truncated to [0, 1); the result is the mixture over the
 * shared nodes.
 */
function groupTerms(terms: readonly ScoreTerm[]): ShareDistribution {
  let wsum = 0;
  for (const t of terms) wsum += t.weight;
  const shared = terms.reduce((s, t) => Math.max(s, t.shared), 0);
  const outer = shared > 0 ? normalNodes(SHARED_NODES) : Float64Array.of(0);
  const inner = normalNodes(OWN_NODES);
  const means = new Float64Array(outer.length);
  const sds = new Float64Array(outer.length);
  let mean = 0;
  outer.forEach((zg, g) => {
    let m = 0;
    let v = 0;
    for (const t of terms) {
      const w = t.weight / wsum;
      const base = t.mean + Math.sqrt(Math.max(0, t.shared)) * zg;
      const so = Math.sqrt(Math.max(0, t.own));
      let e1 = 0;
      let e2 = 0;
      for (const z of inner) {
        const p = sigmoid(t.slope * (base + so * z - t.difficulty));
        e1 += p;
        e2 += p * p;
      }
      e1 /= inner.length;
      e2 /= inner.length;
      let var_ = Math.max(0, e2 - e1 * e1);
      if (Number.isFinite(t.answers)) {
        const n = Math.max(1, Math.round(t.answers));
        var_ += (e1 - e2) / n + 1 / (12 * n * n);
      }
      m += w * e1;
      v += w * w * var_;
    }
    means[g] = m;
    sds[g] = Math.sqrt(Math.max(v, 1e-12));
    mean += m;
  });
  mean /= outer.length;
  const lower = new Float64Array(outer.length);
  const mass = new Float64Array(outer.length);
  for (let g = 0; g < outer.length; g++) {
    const m = means[g] as number;
    const s = sds[g] as number;
    lower[g] = normalCdf((0 - m) / s);
    mass[g] = Math.max(1e-300, normalCdf((1 - m) / s) - (lower[g] as number));
  }
  const cdf = (q: number): number => {
    if (q <= 0) return 0;
    if (q >= 1) return 1;
    let c = 0;
    for (let g = 0; g < outer.length; g++) {
      c += (normalCdf((q - (means[g] as number)) / (sds[g] as number)) - (lower[g] as number)) / (mass[g] as number);
    }
    return c / outer.length;
  };
  return { mean, cdf, quantile: (c) => Math.min(invertCdf(cdf, clampLevel(c)), 1 - 1e-9) };
}

/** Distribution of the weighted share over the terms (at least one term with positive weight). */
export function shareDistribution(terms: readonly ScoreTerm[]): ShareDistribution {
  const live = terms.filter((t) => t.weight > 0);
  if (live.length === 0) throw new Error("shareDistribution needs at least one term with a positive weight");
  if (live.length === 1) {
    const t = live[0] as ScoreTerm;
    if (!Number.isFinite(t.answers) || t.answers <= EXACT_MAX_ANSWERS) return singleTerm(t);
  }
  return groupTerms(live);
}
