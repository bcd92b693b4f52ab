/**
 * What the group paths of score-distribution.ts need of one term at each node of the shared part of
 * the ability: computed once per term and reused by every group the term is in (and the overall
 * score), so a request's cost grows with its distinct objectives, not with groups × objectives.
 *
 * At shared node z_g and own Gauss–Hermite node u_j the probability of a right answer is
 * p = σ(a(m − d + √shared·z_g + √own·u_j)). Averaged over j with the rule's weights:
 *   e1 = E[p], e2 = E[p²], ea = E[(1 − p)ⁿ] (all n answers wrong), eb = E[pⁿ] (all right), and
 *   pmf[x] = E[Binomial(n, p)(x)] for the exact small-group path.
 * A term without a shared part has the same values at every node.
 */
import { binomialPmf, hermiteRule, normalNodes } from "./numeric";
import type { ScoreTerm } from "./share-cells";

/** Equal-probability nodes over the shared part; Gauss–Hermite nodes over each term's own part. */
export const SHARED_NODES = 16;
export const OWN_HERMITE = 8;

export interface TermNodes {
  /** Answers n (0 for the long-run share). */
  n: number;
  e1: Float64Array;
  e2: Float64Array;
  ea: Float64Array;
  eb: Float64Array;
  /** pmf of x right answers at node g: pmf[g·(n + 1) + x] (finite n only; filled on first use). */
  pmf?: Float64Array;
}

/** Per-term results of one learner, keyed by `ScoreTerm.id` (one memo per account: the ids are its objectives). */
export type TermMemo = Map<string, TermNodes>;

/** x^n for a non-negative integer n (square-and-multiply; exact for small n, no Math.pow call). */
export function ipow(x: number, n: number): number {
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

const answersOf = (t: ScoreTerm) => (Number.isFinite(t.answers) ? Math.max(1, Math.round(t.answers)) : 0);

/** Answers up to which the binomial mixture is computed with the node moments (one pass over the nodes). */
const PMF_WITH_MOMENTS = 64;

function computeNodes(t: ScoreTerm): TermNodes {
  const n = answersOf(t);
  const outer = normalNodes(SHARED_NODES);
  const inner = hermiteRule(OWN_HERMITE);
  const c0 = t.slope * (t.mean - t.difficulty);
  const cs = t.slope * Math.sqrt(Math.max(0, t.shared));
  const so = t.slope * Math.sqrt(Math.max(0, t.own));
  const nodes: TermNodes = {
    n,
    e1: new Float64Array(SHARED_NODES),
    e2: new Float64Array(SHARED_NODES),
    ea: new Float64Array(SHARED_NODES),
    eb: new Float64Array(SHARED_NODES),
  };
  const n1 = n + 1;
  const pmf = n > 0 && n <= PMF_WITH_MOMENTS ? new Float64Array(SHARED_NODES * n1) : undefined;
  const distinct = cs > 0 ? SHARED_NODES : 1;
  for (let g = 0; g < distinct; g++) {
    const base = c0 + cs * (outer[g] as number);
    let e1 = 0;
    let e2 = 0;
    let ea = 0;
    let eb = 0;
    for (let j = 0; j < inner.nodes.length; j++) {
      const p = 1 / (1 + Math.exp(-(base + so * (inner.nodes[j] as number))));
      const w = inner.weights[j] as number;
      e1 += w * p;
      e2 += w * p * p;
      if (n > 0) {
        const none = ipow(1 - p, n);
        ea += w * none;
        eb += w * ipow(p, n);
        if (pmf) addBinomial(pmf, g * n1, n, p, none, w);
      }
    }
    nodes.e1[g] = e1;
    nodes.e2[g] = e2;
    nodes.ea[g] = ea;
    nodes.eb[g] = eb;
  }
  if (distinct === 1) {
    nodes.e1.fill(nodes.e1[0] as number);
    nodes.e2.fill(nodes.e2[0] as number);
    nodes.ea.fill(nodes.ea[0] as number);
    nodes.eb.fill(nodes.eb[0] as number);
    if (pmf) for (let g = 1; g < SHARED_NODES; g++) pmf.copyWithin(g * n1, 0, n1);
  }
  if (pmf) nodes.pmf = pmf;
  return nodes;
}

/** Adds w · Binomial(n, p) to pmf[at..at + n], given (1 − p)ⁿ (small n: the ratio recursion from x = 0). */
function addBinomial(pmf: Float64Array, at: number, n: number, p: number, none: number, w: number): void {
  if (none > 1e-280 && p > 0) {
    const r = p / (1 - p);
    let v = none;
    pmf[at] = (pmf[at] as number) + w * v;
    for (let x = 0; x < n; x++) {
      v = (v * r * (n - x)) / (x + 1);
      pmf[at + x + 1] = (pmf[at + x + 1] as number) + w * v;
    }
    return;
  }
  const tmp = binomialPmf(n, p, new Float64Array(n + 1));
  for (let x = 0; x <= n; x++) pmf[at + x] = (pmf[at + x] as number) + w * (tmp[x] as number);
}

function computePmf(t: ScoreTerm, n: number): Float64Array {
  const outer = normalNodes(SHARED_NODES);
  const inner = hermiteRule(OWN_HERMITE);
  const c0 = t.slope * (t.mean - t.difficulty);
  const cs = t.slope * Math.sqrt(Math.max(0, t.shared));
  const so = t.slope * Math.sqrt(Math.max(0, t.own));
  const pmf = new Float64Array(SHARED_NODES * (n + 1));
  for (let g = 0; g < SHARED_NODES; g++) {
    const base = c0 + cs * (outer[g] as number);
    for (let j = 0; j < inner.nodes.length; j++) {
      const p = 1 / (1 + Math.exp(-(base + so * (inner.nodes[j] as number))));
      addBinomial(pmf, g * (n + 1), n, p, ipow(1 - p, n), inner.weights[j] as number);
    }
  }
  return pmf;
}

/** The term's node values, from the memo when the term has an id (computed and kept on first use). */
export function termNodes(t: ScoreTerm, memo?: TermMemo): TermNodes {
  if (!memo || t.id === undefined) return computeNodes(t);
  let nodes = memo.get(t.id);
  if (!nodes) {
    nodes = computeNodes(t);
    memo.set(t.id, nodes);
  }
  return nodes;
}

/** The term's binomial mixture at each shared node (finite answers), memoized like termNodes. */
export function termPmf(t: ScoreTerm, memo?: TermMemo): Float64Array {
  const nodes = termNodes(t, memo);
  if (!nodes.pmf) nodes.pmf = computePmf(t, nodes.n);
  return nodes.pmf;
}
