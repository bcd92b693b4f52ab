/**
 * Offline calibration from historical event sequences (one sequence per learner, in order).
 *
 * 1. Filter item/objective difficulties: smoothed correct rates on the logit scale.
 * 2. Filter hyper-parameters: small grid, chosen by the filter's own log-loss on held-out train learners.
 * 3. The logistic predictor (dense feature weights, item easiness, per-objective easiness and count
 *    weights) is fitted by L2-regularised maximum likelihood (L-BFGS) on the features produced by
 *    replaying the training sequences through the very same online update. Difficulties used by the
 *    replay are cross-fitted (each learner's replay uses difficulties estimated without that learner),
 *    so the training features have the same distribution as on new learners.
 *    The L2 strengths are chosen on a held-out split of training learners.
 */
import { encodeFeatures, FEATURE_NAMES, NUM_FEATURES } from "./features";
import { lbfgs } from "./lbfgs";
import { initialLearnerState } from "./learner-state";
import { logit, mulberry32, sigmoid } from "./math";
import { auc, logLoss } from "./metrics";
import { DEFAULT_FILTER, DEFAULT_GRAPH, type FilterParams, type ItemEntry, type ModelParams, type ObjectiveEntry } from "./params";
import { applyGraded, applyUngraded, type LearnerEvent } from "./update";

export type TrainingSequence = readonly LearnerEvent[];

export interface L2Config {
  /** Prior precision of item easiness weights. */
  item: number;
  /** Prior precision of per-objective easiness weights. */
  objective: number;
  /** Prior precision of per-objective count weights. */
  counts: number;
  /** Prior precision of dense feature weights. */
  dense: number;
}

export interface CalibrateOptions {
  seed?: number;
  /** Fraction of training learners held out for hyper-parameter selection (0 disables selection). */
  holdout?: number;
  /** Number of cross-fitting folds. */
  folds?: number;
  /** Candidate L2 configurations (first one is used when selection is disabled). */
  l2Grid?: L2Config[];
  /** Candidate filter parameters (first one used when selection is disabled). */
  filterGrid?: FilterParams[];
  /** How the filter's item difficulties are estimated: a penalised Rasch fit (default) or smoothed rates. */
  difficulty?: "rasch" | "rates";
  /** Include PFA-style learning covariates in the Rasch fit, so difficulties are not confounded by practice order. */
  raschLearning?: boolean;
  /** Candidate prior precisions of Rasch item offsets (selected by held-out filter log-loss). */
  raschItemPrecisionGrid?: number[];
  /** Cap on the rows used for hyper-parameter selection (a deterministic subsample of learners). */
  selectionMaxRows?: number;
  /** "rates" method: pseudo-counts pulling objective rates to the global rate, and item rates to their objectives'. */
  objectivePrior?: number;
  itemPrior?: number;
  maxIter?: number;
  log?: (msg: string) => void;
}

export const DEFAULT_L2_GRID: L2Config[] = [
  { item: 8, objective: 1, counts: 5, dense: 0.1 },
  { item: 3, objective: 1, counts: 5, dense: 0.1 },
  { item: 20, objective: 1, counts: 20, dense: 0.1 },
];

export function defaultFilterGrid(hasTime: boolean): FilterParams[] {
  const out: FilterParams[] = [];
  for (const pv of [0.3, 0.15, 0.6]) {
    for (const pg of [1.0, 0.6]) {
      for (const q of [0.03, 0.01, 0.06]) {
        for (const hl of hasTime ? [0, 30] : [0]) {
          out.push({ ...DEFAULT_FILTER, priorVarGlobal: pg, priorVarObjective: pv, noiseObjective: q, forgetHalfLifeDays: hl });
        }
      }
    }
  }
  return out;
}

interface DifficultyTables {
  items: Map<string, [number, number]>; // key -> [difficulty, count]
  objectives: Map<string, number>;
  global: number;
}

function uniq(objs: readonly string[]): readonly string[] {
  return objs.length <= 1 ? objs : [...new Set(objs)];
}

function difficultyTables(seqs: readonly TrainingSequence[], objPrior: number, itemPrior: number): DifficultyTables {
  let N = 0,
    W = 0;
  const on = new Map<string, [number, number]>();
  const inn = new Map<string, [number, number, readonly string[]]>();
  for (const s of seqs) {
    for (const e of s) {
      if (e.kind !== "graded") continue;
      const y = e.correct === true || e.correct === 1 ? 1 : 0;
      N++;
      W += y;
      for (const k of uniq(e.objectives)) {
        const c = on.get(k);
        if (c) {
          c[0]++;
          c[1] += y;
        } else on.set(k, [1, y]);
      }
      const c = inn.get(e.itemKey);
      if (c) {
        c[0]++;
        c[1] += y;
      } else inn.set(e.itemKey, [1, y, e.objectives]);
    }
  }
  const p0 = (W + 1) / (N + 2);
  const objectives = new Map<string, number>();
  for (const [k, [n, w]] of on) objectives.set(k, -logit((w + objPrior * p0) / (n + objPrior)));
  const items = new Map<string, [number, number]>();
  for (const [key, [n, w, objs]] of inn) {
    let s = 0,
      c = 0;
    for (const k of uniq(objs)) {
      const d = objectives.get(k);
      if (d !== undefined) {
        s += d;
        c++;
      }
    }
    const pPrior = sigmoid(-(c > 0 ? s / c : -logit(p0)));
    items.set(key, [-logit((w + itemPrior * pPrior) / (n + itemPrior)), n]);
  }
  return { items, objectives, global: -logit(p0) };
}

/**
 * Ability-adjusted difficulties: a Rasch model logit = θ_learner − b_item − mean_k c_k fitted by
 * penalised maximum likelihood (item offsets shrunk toward their objectives' difficulty).
 */
function raschTables(seqs: readonly TrainingSequence[], itemPrec: number, maxIter: number, learning: boolean): DifficultyTables {
  const items = new Map<string, number>();
  const objs = new Map<string, number>();
  const itemObjs: number[][] = [];
  let n = 0;
  for (const s of seqs)
    for (const e of s) {
      if (e.kind !== "graded") continue;
      n++;
      if (!items.has(e.itemKey)) {
        items.set(e.itemKey, items.size);
        const list: number[] = [];
        for (const k of uniq(e.objectives)) {
          let j = objs.get(k);
          if (j === undefined) {
            j = objs.size;
            objs.set(k, j);
          }
          list.push(j);
        }
        itemObjs.push(list);
      }
    }
  const S = seqs.length,
    I = items.size,
    K = objs.size;
  const rowS = new Int32Array(n),
    rowI = new Int32Array(n),
    rowY = new Uint8Array(n);
  // Learning covariates (PFA-style): mean over the item's objectives of log(1+prior wins / fails).
  const rowLw = new Float64Array(n),
    rowLf = new Float64Array(n);
  const counts = new Float64Array(I);
  let r = 0;
  seqs.forEach((s, si) => {
    const wins = new Map<number, number>();
    const fails = new Map<number, number>();
    for (const e of s) {
      if (e.kind !== "graded") continue;
      rowS[r] = si;
      const ii = items.get(e.itemKey) as number;
      rowI[r] = ii;
      counts[ii] = (counts[ii] as number) + 1;
      const y = e.correct === true || e.correct === 1 ? 1 : 0;
      rowY[r] = y;
      const ks = itemObjs[ii] as number[];
      let lw = 0,
        lf = 0;
      for (const k of ks) {
        lw += Math.log1p(wins.get(k) ?? 0);
        lf += Math.log1p(fails.get(k) ?? 0);
      }
      if (learning) {
        rowLw[r] = lw / (ks.length || 1);
        rowLf[r] = lf / (ks.length || 1);
      }
      for (const k of ks) {
        if (y) wins.set(k, (wins.get(k) ?? 0) + 1);
        else fails.set(k, (fails.get(k) ?? 0) + 1);
      }
      r++;
    }
  });
  // layout: [bias | θ (S) | b (I) | c (K) | learning weights (2)]
  const oT = 1,
    oB = 1 + S,
    oC = 1 + S + I,
    oP = 1 + S + I + K,
    size = 3 + S + I + K;
  const fn = (w: Float64Array, g: Float64Array): number => {
    g.fill(0);
    let loss = 0;
    for (let q = 0; q < n; q++) {
      const ii = rowI[q] as number;
      const ks = itemObjs[ii] as number[];
      let c = 0;
      for (const k of ks) c += w[oC + k] as number;
      const m = ks.length || 1;
      const lw = rowLw[q] as number,
        lf = rowLf[q] as number;
      const z =
        (w[0] as number) + (w[oT + (rowS[q] as number)] as number) - (w[oB + ii] as number) - c / m + (w[oP] as number) * lw + (w[oP + 1] as number) * lf;
      const y = rowY[q] as number;
      const ez = Math.exp(-Math.abs(z));
      loss += Math.max(z, 0) + Math.log1p(ez) - y * z;
      const res = (z >= 0 ? 1 / (1 + ez) : ez / (1 + ez)) - y;
      g[0] = (g[0] as number) + res;
      g[oT + (rowS[q] as number)] = (g[oT + (rowS[q] as number)] as number) + res;
      g[oB + ii] = (g[oB + ii] as number) - res;
      for (const k of ks) g[oC + k] = (g[oC + k] as number) - res / m;
      g[oP] = (g[oP] as number) + res * lw;
      g[oP + 1] = (g[oP + 1] as number) + res * lf;
    }
    for (let j = 1; j < size; j++) {
      const wj = w[j] as number;
      const pj = j < oB ? 1 : j < oC ? itemPrec : 0.01;
      loss += 0.5 * pj * wj * wj;
      g[j] = (g[j] as number) + pj * wj;
    }
    return loss;
  };
  const hd = new Float64Array(size);
  hd[0] = 0.25 * n;
  for (let q = 0; q < n; q++) {
    const ii = rowI[q] as number;
    const ks = itemObjs[ii] as number[];
    const m = ks.length || 1;
    hd[oT + (rowS[q] as number)] = (hd[oT + (rowS[q] as number)] as number) + 0.25;
    hd[oB + ii] = (hd[oB + ii] as number) + 0.25;
    for (const k of ks) hd[oC + k] = (hd[oC + k] as number) + 0.25 / (m * m);
    hd[oP] = (hd[oP] as number) + 0.25 * (rowLw[q] as number) ** 2;
    hd[oP + 1] = (hd[oP + 1] as number) + 0.25 * (rowLf[q] as number) ** 2;
  }
  for (let j = 0; j < size; j++) hd[j] = 1 / Math.sqrt((hd[j] as number) + (j === 0 ? 1e-3 : j < oB ? 1 : j < oC ? itemPrec : 0.01));
  const fit = lbfgs(fn, new Float64Array(size), { maxIter, relTol: 1e-7, scale: hd });
  const w = fit.w;
  const bias = w[0] as number;
  const objectives = new Map<string, number>();
  for (const [k, j] of objs) objectives.set(k, (w[oC + j] as number) - bias);
  const out = new Map<string, [number, number]>();
  for (const [key, ii] of items) {
    const ks = itemObjs[ii] as number[];
    let c = 0;
    for (const k of ks) c += w[oC + k] as number;
    out.set(key, [(w[oB + ii] as number) + c / (ks.length || 1) - bias, counts[ii] as number]);
  }
  let gsum = 0;
  for (const d of objectives.values()) gsum += d;
  return { items: out, objectives, global: K > 0 ? gsum / K : -bias };
}

interface DifficultyConfig {
  method: "rasch" | "rates";
  raschItemPrecision: number;
  raschLearning: boolean;
  objectivePrior: number;
  itemPrior: number;
}

function tables(seqs: readonly TrainingSequence[], c: DifficultyConfig): DifficultyTables {
  return c.method === "rasch" ? raschTables(seqs, c.raschItemPrecision, 100, c.raschLearning) : difficultyTables(seqs, c.objectivePrior, c.itemPrior);
}

function filterOnlyParams(t: DifficultyTables, filter: FilterParams): ModelParams {
  const items: Record<string, ItemEntry> = {};
  for (const [k, [d, n]] of t.items) items[k] = [0, d, n, 0];
  const objectives: Record<string, ObjectiveEntry> = {};
  for (const [k, d] of t.objectives) objectives[k] = [0, 0, 0, d];
  return {
    version: 1,
    featureNames: [...FEATURE_NAMES],
    dense: new Array<number>(NUM_FEATURES).fill(0),
    items,
    objectives,
    globalDifficulty: t.global,
    filter,
    graph: { ...DEFAULT_GRAPH },
    refine: { step: 0.02, maxShift: 1 },
    meta: {},
  };
}

/** Rows produced by replaying sequences: features + sparse indices, in typed arrays. */
interface Design {
  n: number;
  X: Float64Array; // n * F
  item: Int32Array; // index into item vocabulary, -1 if unknown
  objPtr: Int32Array; // n + 1
  objIdx: Int32Array;
  objLw: Float64Array;
  objLf: Float64Array;
  y: Uint8Array;
  filterP: Float64Array;
}

interface Vocab {
  items: Map<string, number>;
  objectives: Map<string, number>;
}

function extract(seqs: readonly TrainingSequence[], params: ModelParams, vocab: Vocab): Design {
  let n = 0,
    nnz = 0;
  for (const s of seqs)
    for (const e of s)
      if (e.kind === "graded") {
        n++;
        nnz += uniq(e.objectives).length;
      }
  const F = NUM_FEATURES;
  const X = new Float64Array(n * F);
  const item = new Int32Array(n);
  const objPtr = new Int32Array(n + 1);
  const objIdx = new Int32Array(nnz);
  const objLw = new Float64Array(nnz);
  const objLf = new Float64Array(nnz);
  const y = new Uint8Array(n);
  const filterP = new Float64Array(n);
  const buf = new Float64Array(F);
  let r = 0,
    q = 0;
  for (const s of seqs) {
    const st = initialLearnerState(params);
    for (const e of s) {
      if (e.kind !== "graded") {
        applyUngraded(st, params, undefined, e);
        continue;
      }
      const objs = uniq(e.objectives);
      const ref = { itemKey: e.itemKey, objectives: objs };
      const t = e.timeMs ?? 0;
      encodeFeatures(st, params, ref, t, buf);
      X.set(buf, r * F);
      item[r] = vocab.items.get(e.itemKey) ?? -1;
      objPtr[r] = q;
      for (const k of objs) {
        const o = st.objectives[k];
        objIdx[q] = vocab.objectives.get(k) ?? -1;
        objLw[q] = o ? Math.log1p(o.w) : 0;
        objLf[q] = o ? Math.log1p(o.n - o.w) : 0;
        q++;
      }
      y[r] = e.correct === true || e.correct === 1 ? 1 : 0;
      filterP[r] = applyGraded(st, params, undefined, ref.objectives === e.objectives ? e : { ...e, objectives: objs });
      r++;
    }
  }
  objPtr[n] = q;
  return { n, X, item, objPtr, objIdx, objLw, objLf, y, filterP };
}

function concatDesigns(ds: Design[]): Design {
  const F = NUM_FEATURES;
  let n = 0,
    nnz = 0;
  for (const d of ds) {
    n += d.n;
    nnz += d.objIdx.length;
  }
  const out: Design = {
    n,
    X: new Float64Array(n * F),
    item: new Int32Array(n),
    objPtr: new Int32Array(n + 1),
    objIdx: new Int32Array(nnz),
    objLw: new Float64Array(nnz),
    objLf: new Float64Array(nnz),
    y: new Uint8Array(n),
    filterP: new Float64Array(n),
  };
  let r = 0,
    q = 0;
  for (const d of ds) {
    out.X.set(d.X, r * F);
    out.item.set(d.item, r);
    for (let i = 0; i < d.n; i++) out.objPtr[r + i] = (d.objPtr[i] as number) + q;
    out.objIdx.set(d.objIdx, q);
    out.objLw.set(d.objLw, q);
    out.objLf.set(d.objLf, q);
    out.y.set(d.y, r);
    out.filterP.set(d.filterP, r);
    r += d.n;
    q += d.objIdx.length;
  }
  out.objPtr[n] = q;
  return out;
}

function splitFolds<T>(xs: readonly T[], k: number, seed: number): T[][] {
  const rnd = mulberry32(seed);
  const order = xs.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    const t = order[i] as number;
    order[i] = order[j] as number;
    order[j] = t;
  }
  const folds: T[][] = Array.from({ length: k }, () => []);
  for (const [pos, idx] of order.entries()) folds[pos % k]?.push(xs[idx] as T);
  return folds;
}

/** Replays `target` with difficulties cross-fitted over `folds` folds of `target` itself. */
function crossFittedDesign(target: readonly TrainingSequence[], folds: number, seed: number, filter: FilterParams, vocab: Vocab, dc: DifficultyConfig): Design {
  const parts = splitFolds(target, folds, seed);
  const designs: Design[] = [];
  for (let f = 0; f < parts.length; f++) {
    const rest: TrainingSequence[] = [];
    parts.forEach((p, g) => {
      if (g !== f) rest.push(...p);
    });
    const params = filterOnlyParams(tables(rest, dc), filter);
    designs.push(extract(parts[f] ?? [], params, vocab));
  }
  return concatDesigns(designs);
}

interface Layout {
  F: number;
  nI: number;
  nO: number;
  offI: number;
  offOB: number;
  offOW: number;
  offOF: number;
  size: number;
}

function layout(vocab: Vocab): Layout {
  const F = NUM_FEATURES,
    nI = vocab.items.size,
    nO = vocab.objectives.size;
  return { F, nI, nO, offI: F, offOB: F + nI, offOW: F + nI + nO, offOF: F + nI + 2 * nO, size: F + nI + 3 * nO };
}

function linearPredictor(d: Design, L: Layout, w: Float64Array, r: number): number {
  const F = L.F;
  let z = 0;
  const base = r * F;
  for (let j = 0; j < F; j++) z += (d.X[base + j] as number) * (w[j] as number);
  const it = d.item[r] as number;
  if (it >= 0) z += w[L.offI + it] as number;
  for (let q = d.objPtr[r] as number, e = d.objPtr[r + 1] as number; q < e; q++) {
    const k = d.objIdx[q] as number;
    if (k < 0) continue;
    z += (w[L.offOB + k] as number) + (w[L.offOW + k] as number) * (d.objLw[q] as number) + (w[L.offOF + k] as number) * (d.objLf[q] as number);
  }
  return z;
}

function fitLogistic(d: Design, L: Layout, l2: L2Config, maxIter: number): Float64Array {
  const prec = new Float64Array(L.size);
  for (let j = 0; j < L.F; j++) prec[j] = j === 0 ? 1e-4 : l2.dense;
  prec.fill(l2.item, L.offI, L.offOB);
  prec.fill(l2.objective, L.offOB, L.offOW);
  prec.fill(l2.counts, L.offOW, L.size);
  const F = L.F;
  const fn = (w: Float64Array, g: Float64Array): number => {
    let loss = 0;
    g.fill(0);
    for (let r = 0; r < d.n; r++) {
      const z = linearPredictor(d, L, w, r);
      const y = d.y[r] as number;
      const ez = Math.exp(-Math.abs(z));
      loss += Math.max(z, 0) + Math.log1p(ez) - y * z;
      const res = (z >= 0 ? 1 / (1 + ez) : ez / (1 + ez)) - y;
      const base = r * F;
      for (let j = 0; j < F; j++) g[j] = (g[j] as number) + res * (d.X[base + j] as number);
      const it = d.item[r] as number;
      if (it >= 0) g[L.offI + it] = (g[L.offI + it] as number) + res;
      for (let q = d.objPtr[r] as number, e = d.objPtr[r + 1] as number; q < e; q++) {
        const k = d.objIdx[q] as number;
        if (k < 0) continue;
        g[L.offOB + k] = (g[L.offOB + k] as number) + res;
        g[L.offOW + k] = (g[L.offOW + k] as number) + res * (d.objLw[q] as number);
        g[L.offOF + k] = (g[L.offOF + k] as number) + res * (d.objLf[q] as number);
      }
    }
    for (let j = 0; j < L.size; j++) {
      const wj = w[j] as number;
      const pj = prec[j] as number;
      loss += 0.5 * pj * wj * wj;
      g[j] = (g[j] as number) + pj * wj;
    }
    return loss;
  };
  const hd = new Float64Array(L.size);
  for (let r = 0; r < d.n; r++) {
    const base = r * F;
    for (let j = 0; j < F; j++) {
      const x = d.X[base + j] as number;
      hd[j] = (hd[j] as number) + 0.25 * x * x;
    }
    const it = d.item[r] as number;
    if (it >= 0) hd[L.offI + it] = (hd[L.offI + it] as number) + 0.25;
    for (let q = d.objPtr[r] as number, e = d.objPtr[r + 1] as number; q < e; q++) {
      const k = d.objIdx[q] as number;
      if (k < 0) continue;
      const lw = d.objLw[q] as number,
        lf = d.objLf[q] as number;
      hd[L.offOB + k] = (hd[L.offOB + k] as number) + 0.25;
      hd[L.offOW + k] = (hd[L.offOW + k] as number) + 0.25 * lw * lw;
      hd[L.offOF + k] = (hd[L.offOF + k] as number) + 0.25 * lf * lf;
    }
  }
  for (let j = 0; j < L.size; j++) hd[j] = 1 / Math.sqrt((hd[j] as number) + (prec[j] as number));
  const fit = lbfgs(fn, new Float64Array(L.size), { maxIter, relTol: 1e-8, scale: hd });
  return fit.w;
}

function scoreDesign(d: Design, L: Layout, w: Float64Array): { auc: number; logLoss: number } {
  const p = new Float64Array(d.n);
  for (let r = 0; r < d.n; r++) p[r] = sigmoid(linearPredictor(d, L, w, r));
  return { auc: auc(p, d.y), logLoss: logLoss(p, d.y) };
}

function buildVocab(seqs: readonly TrainingSequence[]): Vocab {
  const items = new Map<string, number>();
  const objectives = new Map<string, number>();
  for (const s of seqs)
    for (const e of s) {
      if (e.kind !== "graded") continue;
      if (!items.has(e.itemKey)) items.set(e.itemKey, items.size);
      for (const k of e.objectives) if (!objectives.has(k)) objectives.set(k, objectives.size);
    }
  return { items, objectives };
}

/** Deterministic subsample of learners totalling roughly `maxRows` graded rows (all if fewer). */
function capRows(seqs: readonly TrainingSequence[], maxRows: number, seed: number): TrainingSequence[] {
  let total = 0;
  for (const s of seqs) total += s.length;
  if (total <= maxRows) return [...seqs];
  const shuffled = splitFolds(seqs, seqs.length, seed).map((f) => f[0] as TrainingSequence);
  const out: TrainingSequence[] = [];
  let rows = 0;
  for (const s of shuffled) {
    if (rows >= maxRows) break;
    out.push(s);
    rows += s.length;
  }
  return out;
}

/** Fits ModelParams from training sequences (one per learner, chronological). Deterministic given the seed. */
export function calibrate(sequences: readonly TrainingSequence[], options: CalibrateOptions = {}): ModelParams {
  const log = options.log ?? (() => {});
  const seed = options.seed ?? 1;
  const holdout = options.holdout ?? 0.2;
  const folds = options.folds ?? 5;
  const maxIter = options.maxIter ?? 150;
  const hasTime = sequences.some((s) => s.some((e) => (e.timeMs ?? 0) > 0));
  const l2Grid = options.l2Grid ?? DEFAULT_L2_GRID;
  const filterGrid = options.filterGrid ?? defaultFilterGrid(hasTime);
  const method = options.difficulty ?? "rasch";
  const precGrid = method === "rasch" ? (options.raschItemPrecisionGrid ?? [1, 0.5, 2]) : [1];
  const dc: DifficultyConfig = {
    method,
    raschItemPrecision: precGrid[0] ?? 1,
    raschLearning: options.raschLearning ?? true,
    objectivePrior: options.objectivePrior ?? 20,
    itemPrior: options.itemPrior ?? 5,
  };
  const vocab = buildVocab(sequences);
  const L = layout(vocab);

  let filter = filterGrid[0] ?? DEFAULT_FILTER;
  let l2 = l2Grid[0] ?? { item: 8, objective: 1, counts: 5, dense: 0.1 };
  const meta: Record<string, number | string> = {};

  const select = holdout > 0 && sequences.length >= 20 && (filterGrid.length > 1 || l2Grid.length > 1 || precGrid.length > 1);
  if (select) {
    // Hyper-parameters are chosen on a split of the training learners only (capped in size for speed).
    const pool = capRows(sequences, options.selectionMaxRows ?? 400_000, seed + 3);
    const nB = Math.max(1, Math.round(pool.length * holdout));
    const shuffled = splitFolds(pool, pool.length, seed + 7).map((f) => f[0] as TrainingSequence);
    const B = shuffled.slice(0, nB);
    const A = shuffled.slice(nB);
    let tablesA = tables(A, dc);
    const filterLoss = (t: DifficultyTables, fp: FilterParams): number => {
      const d = extract(B, filterOnlyParams(t, fp), vocab);
      return logLoss(d.filterP, d.y);
    };
    if (precGrid.length > 1) {
      let best = filterLoss(tablesA, filter);
      for (const prec of precGrid.slice(1)) {
        const t = tables(A, { ...dc, raschItemPrecision: prec });
        const ll = filterLoss(t, filter);
        if (ll < best) {
          best = ll;
          dc.raschItemPrecision = prec;
          tablesA = t;
        }
      }
      log(`rasch item precision selected: ${dc.raschItemPrecision} (held-out filter log-loss ${best.toFixed(4)})`);
    }
    if (filterGrid.length > 1) {
      let best = Infinity;
      for (const fp of filterGrid) {
        const ll = filterLoss(tablesA, fp);
        if (ll < best) {
          best = ll;
          filter = fp;
        }
      }
      log(`filter selected: ${JSON.stringify(filter)} (held-out filter log-loss ${best.toFixed(4)})`);
      meta.filterHoldoutLogLoss = best;
    }
    if (l2Grid.length > 1) {
      const dA = crossFittedDesign(A, folds, seed, filter, vocab, dc);
      const dB = extract(B, filterOnlyParams(tablesA, filter), vocab);
      let best = Infinity;
      for (const cfg of l2Grid) {
        const w = fitLogistic(dA, L, cfg, maxIter);
        const s = scoreDesign(dB, L, w);
        log(`l2 ${JSON.stringify(cfg)}: held-out AUC ${s.auc.toFixed(4)} log-loss ${s.logLoss.toFixed(4)}`);
        if (s.logLoss < best) {
          best = s.logLoss;
          l2 = cfg;
        }
      }
      meta.l2HoldoutLogLoss = best;
    }
  }

  const design = crossFittedDesign(sequences, folds, seed, filter, vocab, dc);
  const w = fitLogistic(design, L, l2, maxIter);
  const params = filterOnlyParams(tables(sequences, dc), filter);
  params.dense = Array.from(w.subarray(0, L.F));
  for (const [key, i] of vocab.items) {
    const e = params.items[key];
    if (e) e[0] = w[L.offI + i] as number;
  }
  for (const [key, k] of vocab.objectives) {
    const e = params.objectives[key];
    if (e) {
      e[0] = w[L.offOB + k] as number;
      e[1] = w[L.offOW + k] as number;
      e[2] = w[L.offOF + k] as number;
    }
  }
  params.meta = {
    ...meta,
    l2: JSON.stringify(l2),
    difficulty: JSON.stringify(dc),
    learners: sequences.length,
    rows: design.n,
    items: vocab.items.size,
    objectives: vocab.objectives.size,
    folds,
    seed,
    hasTime: hasTime ? 1 : 0,
  };
  return params;
}
