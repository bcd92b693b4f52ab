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
import { binomialPmf, hermiteRule, invertCdf, normalCdf, normalNodes, normalQuantile, sigmoid } from "./numeric";

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
/** Single term: Gauss–Hermite nodes over the ability up to SMALL_HORIZON answers, equal-probability nodes beyond. */
const SINGLE_HERMITE = 24;
const SMALL_HORIZON = 50;
const SINGLE_NODES = 96;
/** Group path: equal-probability nodes over the shared part, Gauss–Hermite nodes over each term's own part. */
const SHARED_NODES = 16;
const OWN_HERMITE = 8;

/** x^n for a non-negative integer n (square-and-multiply; exact for small n, no Math.pow call). */
function ipow(x: number, n: number): number {
  let r = 1;
  let b = x;
  let e = n;
  while (e > 0) {
    if (e & 1) r *= b;
    b *= b;
    e >>= 1;
  }
  return r;
}

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
  const rule =
    sd === 0
      ? { nodes: Float64Array.of(0), weights: Float64Array.of(1) }
      : n <= SMALL_HORIZON
        ? hermiteRule(SINGLE_HERMITE)
        : { nodes: normalNodes(SINGLE_NODES), weights: new Float64Array(SINGLE_NODES).fill(1 / SINGLE_NODES) };
  for (let j = 0; j < rule.nodes.length; j++) {
    binomialPmf(n, sigmoid(t.slope * (t.mean + sd * (rule.nodes[j] as number) - t.difficulty)), tmp);
    const w = rule.weights[j] as number;
    for (let x = 0; x <= n; x++) pmf[x] = (pmf[x] as number) + w * (tmp[x] as number);
  }
  let mean = 0;
  for (let x = 0; x <= n; x++) mean += (x / n) * (pmf[x] as number);
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

/** Largest lattice (Π (n_k + 1)) a small group is enumerated exactly on. */
const EXACT_LATTICE = 4096;

/**
 * Small groups (a coarse lattice), computed exactly: conditional on each shared node the terms'
 * binomial mixtures are convolved, and the marginal probabilities of the lattice values averaged over
 * the nodes. Representation as in the approximate path: S = 0 and S = 1 spread over the half cells at
 * the ends, every other value s uniformly over [s − 1/(2N), s + 1/(2N)] ∩ [1/(2N), 1 − 1/(2N)].
 */
function smallGroup(terms: readonly ScoreTerm[]): ShareDistribution {
  let wsum = 0;
  for (const t of terms) wsum += t.weight;
  let invN = 0;
  for (const t of terms) invN += (t.weight / wsum) ** 2 / Math.max(1, Math.round(t.answers));
  const half = invN / 2;
  const shared = terms.reduce((s, t) => Math.max(s, t.shared), 0);
  const outer = shared > 0 ? normalNodes(SHARED_NODES) : Float64Array.of(0);
  const inner = hermiteRule(OWN_HERMITE);
  const key = (v: number) => Math.round(v * 1e9);
  const total = new Map<number, number>();
  const tmp = new Float64Array(EXACT_LATTICE + 1);
  for (const zg of outer) {
    let dist = new Map<number, number>([[0, 1]]);
    for (const t of terms) {
      const n = Math.max(1, Math.round(t.answers));
      const w = t.weight / wsum / n;
      const pmf = new Float64Array(n + 1);
      const base = t.mean + Math.sqrt(Math.max(0, t.shared)) * zg - t.difficulty;
      const so = Math.sqrt(Math.max(0, t.own));
      for (let j = 0; j < inner.nodes.length; j++) {
        binomialPmf(n, 1 / (1 + Math.exp(-t.slope * (base + so * (inner.nodes[j] as number)))), tmp);
        const wj = inner.weights[j] as number;
        for (let x = 0; x <= n; x++) pmf[x] = (pmf[x] as number) + wj * (tmp[x] as number);
      }
      const next = new Map<number, number>();
      for (const [v, pv] of dist) {
        for (let x = 0; x <= n; x++) {
          const k = key(v / 1e9 + w * x);
          next.set(k, (next.get(k) ?? 0) + pv * (pmf[x] as number));
        }
      }
      dist = next;
    }
    for (const [k, pv] of dist) total.set(k, (total.get(k) ?? 0) + pv / outer.length);
  }
  const points = [...total].sort((a, b) => a[0] - b[0]).map(([k, p]) => ({ s: k / 1e9, p }));
  let mean = 0;
  for (const { s, p } of points) mean += s * p;
  const cellOf = (s: number) => groupCell(s, half);
  const cdf = (q: number): number => {
    if (q <= 0) return 0;
    if (q >= 1) return 1;
    let c = 0;
    for (const { s, p } of points) {
      const [a, b] = cellOf(s);
      c += p * (q >= b ? 1 : q <= a ? 0 : (q - a) / (b - a));
    }
    return c;
  };
  return { mean, cdf, quantile: (c) => Math.min(invertCdf(cdf, clampLevel(c)), 1 - 1e-9) };
}

/**
 * Group path. Conditional on the shared part the terms are independent. The group share S = Σ ω_k X_k/n_k
 * is exactly 0 with probability A = Π_k E[(1−π_k)^n_k], exactly 1 with B = Π_k E[π_k^n_k], and otherwise
 * approximated by a normal with the exact remaining mean and variance (binomial noise included),
 * truncated to the inner cells. Its continuous representation uses cells of width 1/N, N = 1/Σ ω_k²/n_k
 * (the group's effective number of answers; N = n for one objective, as in the exact path): S = 0 is
 * spread over [0, 1/(2N)), S = 1 over [1 − 1/(2N), 1), the rest gets the lattice spread 1/(12N²).
 * The result is the mixture over the shared nodes. Long-run shares (n = ∞) have no atoms: a normal on
 * (0, 1) per node.
 */
function groupTerms(terms: readonly ScoreTerm[]): ShareDistribution {
  let wsum = 0;
  for (const t of terms) wsum += t.weight;
  const finite = terms.every((t) => Number.isFinite(t.answers));
  let invN = 0;
  for (const t of terms) if (Number.isFinite(t.answers)) invN += (t.weight / wsum) ** 2 / Math.max(1, Math.round(t.answers));
  const half = finite ? invN / 2 : 0; // half a cell: 1/(2N)
  const shared = terms.reduce((s, t) => Math.max(s, t.shared), 0);
  const outer = shared > 0 ? normalNodes(SHARED_NODES) : Float64Array.of(0);
  const inner = hermiteRule(OWN_HERMITE);
  const G = outer.length;
  const means = new Float64Array(G);
  const sds = new Float64Array(G);
  const zero = new Float64Array(G);
  const one = new Float64Array(G);
  let mean = 0;
  const K = terms.length;
  const J = inner.nodes.length;
  // Per term: the logit is c0 + cs·z_g + off_j (slope folded in).
  const c0 = new Float64Array(K);
  const cs = new Float64Array(K);
  const wt = new Float64Array(K);
  const nk = new Int32Array(K);
  const off = new Float64Array(K * J);
  terms.forEach((t, k) => {
    c0[k] = t.slope * (t.mean - t.difficulty);
    cs[k] = t.slope * Math.sqrt(Math.max(0, t.shared));
    wt[k] = t.weight / wsum;
    nk[k] = Number.isFinite(t.answers) ? Math.max(1, Math.round(t.answers)) : 0;
    const so = t.slope * Math.sqrt(Math.max(0, t.own));
    for (let j = 0; j < J; j++) off[k * J + j] = so * (inner.nodes[j] as number);
  });
  const iw = inner.weights;
  for (let g = 0; g < G; g++) {
    const zg = outer[g] as number;
    let m = 0;
    let v = 0;
    let a = finite ? 1 : 0;
    let b = finite ? 1 : 0;
    for (let k = 0; k < K; k++) {
      const base = (c0[k] as number) + (cs[k] as number) * zg;
      const n = nk[k] as number;
      // The atoms (all wrong / all right) only matter while their running product is not negligible.
      const needA = a > 1e-15;
      const needB = b > 1e-15;
      let e1 = 0;
      let e2 = 0;
      let ea = 0;
      let eb = 0;
      for (let j = 0; j < J; j++) {
        const p = 1 / (1 + Math.exp(-(base + (off[k * J + j] as number))));
        const wj = iw[j] as number;
        e1 += wj * p;
        e2 += wj * p * p;
        if (needA) ea += wj * ipow(1 - p, n);
        if (needB) eb += wj * ipow(p, n);
      }
      let var_ = Math.max(0, e2 - e1 * e1);
      if (n > 0) var_ += (e1 - e2) / n;
      const w = wt[k] as number;
      m += w * e1;
      v += w * w * var_;
      a = needA ? a * ea : 0;
      b = needB ? b * eb : 0;
    }
    mean += m;
    // Remove the atoms at 0 and 1 from the moments; the rest is the inner part.
    const rest = 1 - a - b;
    if (finite && rest > 1e-9) {
      const m2 = v + m * m;
      const mi = (m - b) / rest;
      const vi = Math.max(0, (m2 - b) / rest - mi * mi) + (invN * invN) / 12;
      means[g] = mi;
      sds[g] = Math.sqrt(Math.max(vi, 1e-12));
    } else {
      means[g] = m;
      sds[g] = Math.sqrt(Math.max(v, 1e-12));
    }
    zero[g] = finite ? a : 0;
    one[g] = finite ? b : 0;
  }
  mean /= G;
  const lo = half;
  const hi = 1 - half;
  const lower = new Float64Array(G);
  const mass = new Float64Array(G);
  for (let g = 0; g < G; g++) {
    const mg = means[g] as number;
    const sg = sds[g] as number;
    lower[g] = normalCdf((lo - mg) / sg);
    mass[g] = Math.max(1e-300, normalCdf((hi - mg) / sg) - (lower[g] as number));
  }
  const cdf = (q: number): number => {
    if (q <= 0) return 0;
    if (q >= 1) return 1;
    let c = 0;
    for (let g = 0; g < G; g++) {
      const a = zero[g] as number;
      const b = one[g] as number;
      let inner = 0;
      if (q >= hi) inner = 1;
      else if (q > lo) inner = (normalCdf((q - (means[g] as number)) / (sds[g] as number)) - (lower[g] as number)) / (mass[g] as number);
      c += a * (half > 0 ? Math.min(1, q / half) : 1) + (1 - a - b) * inner + b * (q > hi ? (q - hi) / half : 0);
    }
    return c / G;
  };
  // Bracket for the inversion: every node's inner part lies within ±8 sd of its mean (or in an end cell).
  let qlo = 1;
  let qhi = 0;
  for (let g = 0; g < G; g++) {
    qlo = Math.min(qlo, (means[g] as number) - 8 * (sds[g] as number));
    qhi = Math.max(qhi, (means[g] as number) + 8 * (sds[g] as number));
  }
  if (zero.some((x) => x > 0)) qlo = 0;
  if (one.some((x) => x > 0)) qhi = 1;
  qlo = Math.max(0, Math.min(qlo, lo));
  qhi = Math.min(1, qhi);
  return { mean, cdf, quantile: (c) => Math.min(invertCdf(cdf, clampLevel(c), Math.max(0, qlo), Math.min(1, Math.max(qhi, qlo + 1e-9)), 24), 1 - 1e-9) };
}

/** Distribution of the weighted share over the terms (at least one term with positive weight). */
export function shareDistribution(terms: readonly ScoreTerm[]): ShareDistribution {
  const live = terms.filter((t) => t.weight > 0);
  if (live.length === 0) throw new Error("shareDistribution needs at least one term with a positive weight");
  if (live.length === 1) {
    const t = live[0] as ScoreTerm;
    if (!Number.isFinite(t.answers) || t.answers <= EXACT_MAX_ANSWERS) return singleTerm(t);
  }
  if (live.every((t) => Number.isFinite(t.answers))) {
    let lattice = 1;
    for (const t of live) lattice *= Math.max(1, Math.round(t.answers)) + 1;
    if (lattice <= EXACT_LATTICE) return smallGroup(live);
  }
  return groupTerms(live);
}
