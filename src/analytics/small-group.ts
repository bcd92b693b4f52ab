/**
 * Small groups, computed exactly: conditional on each shared node the terms' binomial mixtures are
 * independent, so the group share S = Σ_k ω_k X_k / n_k is their convolution, and its distribution the
 * average over the nodes. Exact when the lattice is small (Π (n_k + 1) ≤ EXACT_LATTICE) and has few
 * distinct shares (≤ EXACT_SHARES: equal weights give at most a few dozen, e.g. 21 for 5 objectives
 * of 4 answers; unequal weights may give every point its own share, and such groups take the normal
 * approximation of the group path, which bounds the work of a request). Representation as in the
 * approximate path: S = 0 and S = 1 spread over the half cells at the ends, every other value s
 * uniformly over [s − 1/(2N), s + 1/(2N)] ∩ [1/(2N), 1 − 1/(2N)].
 *
 * The distinct shares and where each term's step sends them are built once (they do not depend on
 * the node); each node then convolves along those maps. The CDF of the representation is piecewise
 * linear with a breakpoint at each cell end: it is tabulated in one sweep and percentiles are read off
 * the table.
 */
import { clampLevel, groupCell, type ScoreTerm, type ShareDistribution } from "./share-cells";
import { SHARED_NODES, type TermMemo, termPmf } from "./term-nodes";

/** Largest lattice (Π (n_k+1)) a small group is enumerated exactly on. */
export const EXACT_LATTICE = 4096;
/** Most distinct shares a group is computed exactly with. */
const EXACT_SHARES = 64;
/** Shares closer than this are one share (as 1e-9-rounded keys were before). */
const SAME_SHARE = 1e-9;

export interface Steps {
  /** the distinct shares after the last term, ascending */
  shares: Float64Array;
  /** per term: where share u of the previous step goes with x right answers: map[u·(n + 1) + x] */
  maps: Int32Array[];
  /** distinct shares after each step (sizes[0] = 1: the empty sum) */
  sizes: number[];
}

/** The distinct partial sums, step by step, or undefined once there are more than EXACT_SHARES. */
function steps(increments: readonly number[], answers: readonly number[]): Steps | undefined {
  let shares = Float64Array.of(0);
  const maps: Int32Array[] = [];
  const sizes = [1];
  for (let k = 0; k < increments.length; k++) {
    const n1 = (answers[k] as number) + 1;
    const step = increments[k] as number;
    const m = shares.length;
    // candidate u·(n+1) + x is share u plus x steps; the distinct ones, ascending (runs of values
    // closer than SAME_SHARE are one share, the smallest), and each candidate's place among them
    const candidates = new Float64Array(m * n1);
    for (let u = 0; u < m; u++) for (let x = 0; x < n1; x++) candidates[u * n1 + x] = (shares[u] as number) + x * step;
    const sorted = candidates.slice().sort();
    const next: number[] = [];
    for (const v of sorted) {
      if (next.length === 0 || v - (next[next.length - 1] as number) > SAME_SHARE) {
        if (next.length === EXACT_SHARES) return undefined;
        next.push(v);
      }
    }
    const map = new Int32Array(m * n1);
    for (let i = 0; i < candidates.length; i++) {
      const v = candidates[i] as number;
      let lo = 0;
      let hi = next.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if ((next[mid] as number) <= v) lo = mid;
        else hi = mid - 1;
      }
      map[i] = lo;
    }
    shares = Float64Array.from(next);
    maps.push(map);
    sizes.push(shares.length);
  }
  return { shares, maps, sizes };
}

/**
 * The lattices of the groups of one request, by weights and answers (every account of a predicted-score
 * request has the same groups): `null` when a group has too many distinct shares.
 */
export type LatticeCache = Map<string, Steps | null>;

/** The exact distribution of a small group, or undefined when it has too many distinct shares. */
export function smallGroup(terms: readonly ScoreTerm[], memo?: TermMemo, lattices?: LatticeCache): ShareDistribution | undefined {
  let wsum = 0;
  for (const t of terms) wsum += t.weight;
  const answers = terms.map((t) => Math.max(1, Math.round(t.answers)));
  const key = lattices ? terms.map((t, k) => `${t.weight}/${answers[k]}`).join(",") : "";
  let lattice = lattices?.get(key);
  if (lattice === undefined) {
    lattice =
      steps(
        terms.map((t, k) => t.weight / wsum / (answers[k] as number)),
        answers,
      ) ?? null;
    lattices?.set(key, lattice);
  }
  if (!lattice) return undefined;
  let invN = 0;
  for (const [k, t] of terms.entries()) invN += (t.weight / wsum) ** 2 / (answers[k] as number);
  const half = invN / 2;
  const pmfs = terms.map((t) => termPmf(t, memo));
  const P = lattice.shares.length;
  const prob = new Float64Array(P);
  let cur = new Float64Array(EXACT_SHARES + 1);
  let nxt = new Float64Array(EXACT_SHARES + 1);
  for (let g = 0; g < SHARED_NODES; g++) {
    cur[0] = 1;
    for (let k = 0; k < terms.length; k++) {
      const n1 = (answers[k] as number) + 1;
      const pmf = pmfs[k] as Float64Array;
      const map = lattice.maps[k] as Int32Array;
      const m = lattice.sizes[k] as number;
      nxt.fill(0, 0, lattice.sizes[k + 1]);
      for (let u = 0; u < m; u++) {
        const pu = cur[u] as number;
        for (let x = 0; x < n1; x++) {
          const to = map[u * n1 + x] as number;
          nxt[to] = (nxt[to] as number) + pu * (pmf[g * n1 + x] as number);
        }
      }
      const swap = cur;
      cur = nxt;
      nxt = swap;
    }
    for (let i = 0; i < P; i++) prob[i] = (prob[i] as number) + (cur[i] as number) / SHARED_NODES;
  }
  const lo = new Float64Array(P);
  const hi = new Float64Array(P);
  let mean = 0;
  for (let i = 0; i < P; i++) {
    const s = lattice.shares[i] as number;
    mean += s * (prob[i] as number);
    const [a, b] = groupCell(s, half);
    lo[i] = a;
    hi[i] = b;
  }
  return tabulated(prob, lo, hi, mean);
}

/**
 * The distribution Σ_i p_i · Uniform[lo_i, hi_i) with lo and hi each non-decreasing in i: its CDF is
 * tabulated at every cell end (one sweep over the two sorted sequences), percentiles and CDF values
 * are read off the table by binary search and linear interpolation.
 */
function tabulated(p: Float64Array, lo: Float64Array, hi: Float64Array, mean: number): ShareDistribution {
  const P = p.length;
  const xs = new Float64Array(2 * P + 1);
  const fs = new Float64Array(2 * P + 1);
  let count = 0;
  let x = 0;
  let f = 0;
  let slope = 0;
  let ia = 0;
  let ib = 0;
  xs[count] = 0;
  fs[count++] = 0;
  while (ib < P) {
    const next = Math.min(ia < P ? (lo[ia] as number) : Number.POSITIVE_INFINITY, hi[ib] as number);
    f += slope * (next - x);
    x = next;
    let jump = 0;
    while (ia < P && lo[ia] === next) {
      const width = (hi[ia] as number) - next;
      if (width > 1e-15) slope += (p[ia] as number) / width;
      else jump += p[ia] as number;
      ia++;
    }
    while (ib < P && hi[ib] === next) {
      const width = next - (lo[ib] as number);
      if (width > 1e-15) slope -= (p[ib] as number) / width;
      ib++;
    }
    f += jump;
    if (next > (xs[count - 1] as number)) count++;
    xs[count - 1] = next;
    fs[count - 1] = f;
  }
  const totalMass = fs[count - 1] as number;
  const cdf = (q: number): number => {
    if (q <= 0) return 0;
    if (q >= 1) return 1;
    let a = 0;
    let b = count - 1;
    if (q >= (xs[b] as number)) return 1;
    while (b - a > 1) {
      const m = (a + b) >> 1;
      if ((xs[m] as number) <= q) a = m;
      else b = m;
    }
    const x0 = xs[a] as number;
    const x1 = xs[b] as number;
    return ((fs[a] as number) + (((fs[b] as number) - (fs[a] as number)) * (q - x0)) / (x1 - x0)) / totalMass;
  };
  const quantile = (c: number): number => {
    const target = clampLevel(c) * totalMass;
    let a = 0;
    let b = count - 1;
    while (b - a > 1) {
      const m = (a + b) >> 1;
      if ((fs[m] as number) < target) a = m;
      else b = m;
    }
    const f0 = fs[a] as number;
    const f1 = fs[b] as number;
    const x0 = xs[a] as number;
    const x1 = xs[b] as number;
    const q = f1 > f0 ? x0 + ((target - f0) / (f1 - f0)) * (x1 - x0) : x1;
    return Math.min(Math.max(0, q), 1 - 1e-9);
  };
  return { mean, cdf, quantile };
}
