/**
 * The predictor's training rows: sequences replayed through the very same online update, each graded
 * answer giving the features it would have had live (dense features + sparse item/objective indices).
 */
import { encodeFeatures, NUM_FEATURES } from "../features";
import { initialLearnerState } from "../learner-state";
import { uniq } from "../math";
import type { FilterParams, ModelParams } from "../params";
import { applyGraded, applyUngraded, outcome } from "../update";
import { type DifficultyConfig, type DifficultyTables, filterOnlyParams } from "./difficulty-tables";
import { raschTables } from "./rasch-tables";
import { rateTables } from "./rate-tables";
import { splitFolds, type TrainingSequence } from "./sequences";

/** Rows produced by replaying sequences: features + sparse indices, in typed arrays. */
export interface Design {
  n: number;
  X: Float64Array; // n * F
  item: Int32Array; // index into item vocabulary, -1 if unknown
  objPtr: Int32Array; // n + 1
  objIdx: Int32Array;
  objLw: Float64Array;
  objLf: Float64Array;
  y: Uint8Array;
  /** The filter's own prediction of the row (made before its update). */
  filterP: Float64Array;
}

export interface Vocab {
  items: Map<string, number>;
  objectives: Map<string, number>;
}

export function buildVocab(seqs: readonly TrainingSequence[]): Vocab {
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

export function difficultyTables(seqs: readonly TrainingSequence[], c: DifficultyConfig): DifficultyTables {
  return c.method === "rasch" ? raschTables(seqs, c.raschItemPrecision, 100, c.raschLearning) : rateTables(seqs, c.objectivePrior, c.itemPrior);
}

/** Replays `seqs` with `params`, recording each graded answer's row. */
export function replayDesign(seqs: readonly TrainingSequence[], params: ModelParams, vocab: Vocab): Design {
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
      y[r] = outcome(e.correct);
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
    for (let i = 0; i < d.n; i++) out.objPtr[r + i] = d.objPtr[i]! + q;
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

/**
 * Replays `target` with difficulties cross-fitted over `folds` folds of `target` itself (each learner's
 * replay uses difficulties estimated without that learner), so the rows have the distribution they have
 * on new learners.
 */
export function crossFittedDesign(
  target: readonly TrainingSequence[],
  folds: number,
  seed: number,
  filter: FilterParams,
  vocab: Vocab,
  dc: DifficultyConfig,
): Design {
  const parts = splitFolds(target, folds, seed);
  const designs: Design[] = [];
  for (let f = 0; f < parts.length; f++) {
    const rest: TrainingSequence[] = [];
    parts.forEach((p, g) => {
      if (g !== f) rest.push(...p);
    });
    const params = filterOnlyParams(difficultyTables(rest, dc), filter);
    designs.push(replayDesign(parts[f] ?? [], params, vocab));
  }
  return concatDesigns(designs);
}
