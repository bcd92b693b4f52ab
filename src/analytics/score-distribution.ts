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
import { binomialPmf, hermiteRule, normalCdf, normalNodes, normalQuantile, sigmoid } from "./numeric";
import { clampLevel, type ScoreTerm, type ShareDistribution, shareCell } from "./share-cells";
import { EXACT_LATTICE, type LatticeCache, smallGroup } from "./small-group";
import { SHARED_NODES, type TermMemo, termNodes } from "./term-nodes";

/**
 * Work reused across the groups of one learner (`terms`, keyed by ScoreTerm.id) and across the learners
 * of one request (`lattices`, keyed by a small group's weights and answers).
 */
export interface ScoreMemo {
  terms: TermMemo;
  lattices?: LatticeCache;
}

export type { ScoreTerm, ShareDistribution } from "./share-cells";
export { groupCell, groupHalfCell, shareCell } from "./share-cells";
export type { LatticeCache } from "./small-group";

/** Largest answers count computed exactly for a single term (beyond it: the normal-approximation path). */
const EXACT_MAX_ANSWERS = 2000;
/** Single term: Gauss–Hermite nodes over the ability up to SMALL_HORIZON answers, equal-probability nodes beyond. */
const SINGLE_HERMITE = 24;
const SMALL_HORIZON = 50;
const SINGLE_NODES = 96;

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
 * Group path. Conditional on the shared part the terms are independent. The group share S = Σ ω_k X_k/n_k
 * is exactly 0 with probability A = Π_k E[(1−π_k)^n_k], exactly 1 with B = Π_k E[π_k^n_k], and otherwise
 * approximated by a normal with the exact remaining mean and variance (binomial noise included),
 * truncated to the inner cells. Its continuous representation uses cells of width 1/N, N = 1/Σ ω_k²/n_k
 * (the group's effective number of answers; N = n for one objective, as in the exact path): S = 0 is
 * spread over [0, 1/(2N)), S = 1 over [1 − 1/(2N), 1), the rest gets the lattice spread 1/(12N²).
 * The result is the mixture over the shared nodes. Long-run shares (n = ∞) have no atoms: a normal on
 * (0, 1) per node.
 */
function groupTerms(terms: readonly ScoreTerm[], memo?: TermMemo): ShareDistribution {
  let wsum = 0;
  for (const t of terms) wsum += t.weight;
  const finite = terms.every((t) => Number.isFinite(t.answers));
  let invN = 0;
  for (const t of terms) if (Number.isFinite(t.answers)) invN += (t.weight / wsum) ** 2 / Math.max(1, Math.round(t.answers));
  const half = finite ? invN / 2 : 0; // half a cell: 1/(2N)
  // Terms without a shared part have the same values at every node: one node is enough.
  const G = terms.some((t) => t.shared > 0) ? SHARED_NODES : 1;
  const nodes = terms.map((t) => termNodes(t, memo));
  const means = new Float64Array(G);
  const sds = new Float64Array(G);
  const zero = new Float64Array(G);
  const one = new Float64Array(G);
  let mean = 0;
  const K = terms.length;
  for (let g = 0; g < G; g++) {
    let m = 0;
    let v = 0;
    let a = finite ? 1 : 0;
    let b = finite ? 1 : 0;
    for (let k = 0; k < K; k++) {
      const tn = nodes[k] as (typeof nodes)[number];
      const n = tn.n;
      const e1 = tn.e1[g] as number;
      const e2 = tn.e2[g] as number;
      let var_ = Math.max(0, e2 - e1 * e1);
      if (n > 0) var_ += (e1 - e2) / n;
      const w = (terms[k] as ScoreTerm).weight / wsum;
      m += w * e1;
      v += w * w * var_;
      // The atoms (all wrong / all right) only matter while their running product is not negligible.
      a = a > 1e-15 ? a * (tn.ea[g] as number) : 0;
      b = b > 1e-15 ? b * (tn.eb[g] as number) : 0;
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
  // Its derivative, for Newton steps: the end cells' uniform densities and each node's normal density.
  const density = (q: number): number => {
    if (q <= 0 || q >= 1) return 0;
    let d = 0;
    for (let g = 0; g < G; g++) {
      const a = zero[g] as number;
      const b = one[g] as number;
      if (half > 0 && q < half) d += a / half;
      if (half > 0 && q > hi) d += b / half;
      if (q > lo && q < hi) {
        const sg = sds[g] as number;
        const z = (q - (means[g] as number)) / sg;
        d += ((1 - a - b) * Math.exp(-0.5 * z * z)) / (2.5066282746310002 * sg * (mass[g] as number));
      }
    }
    return d / G;
  };
  const bracket: [number, number] = [Math.max(0, qlo), Math.min(1, Math.max(qhi, qlo + 1e-9))];
  return { mean, cdf, quantile: (c) => Math.min(newtonInverse(cdf, density, clampLevel(c), bracket), 1 - 1e-9) };
}

/**
 * The q in [lo, hi] with cdf(q) = target: Newton steps on the density, kept inside the bracket (a
 * bisection step whenever Newton would leave it), to 1e-12. A handful of CDF evaluations where a
 * bisection to the same accuracy needs about 40.
 */
function newtonInverse(cdf: (q: number) => number, density: (q: number) => number, target: number, [lo0, hi0]: [number, number]): number {
  let lo = lo0;
  let hi = hi0;
  let x = 0.5 * (lo + hi);
  for (let i = 0; i < 60 && hi - lo > 1e-12; i++) {
    const f = cdf(x) - target;
    if (f === 0) return x;
    if (f < 0) lo = x;
    else hi = x;
    const d = density(x);
    const step = d > 0 ? x - f / d : Number.NaN;
    const next = step > lo && step < hi ? step : 0.5 * (lo + hi);
    if (Math.abs(next - x) < 1e-13) return next;
    x = next;
  }
  return x;
}

/**
 * Distribution of the weighted share over the terms (at least one term with positive weight). With a
 * memo (one per learner), the per-term work of terms that carry an `id` is done once and reused.
 */
export function shareDistribution(terms: readonly ScoreTerm[], memo?: ScoreMemo): ShareDistribution {
  const live = terms.filter((t) => t.weight > 0);
  if (live.length === 0) throw new Error("shareDistribution needs at least one term with a positive weight");
  if (live.length === 1) {
    const t = live[0] as ScoreTerm;
    if (!Number.isFinite(t.answers) || t.answers <= EXACT_MAX_ANSWERS) return singleTerm(t);
  }
  if (live.every((t) => Number.isFinite(t.answers))) {
    let lattice = 1;
    for (const t of live) lattice *= Math.max(1, Math.round(t.answers)) + 1;
    const exact = lattice <= EXACT_LATTICE ? smallGroup(live, memo?.terms, memo?.lattices) : undefined;
    if (exact) return exact;
  }
  return groupTerms(live, memo?.terms);
}
