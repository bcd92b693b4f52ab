/**
 * Ability-adjusted difficulties: a Rasch model logit = θ_learner − b_item − mean_k c_k (+ PFA-style
 * learning terms) fitted by penalised maximum likelihood, item offsets shrunk toward their objectives'
 * difficulty.
 */
import { uniq } from "../math";
import { outcome } from "../update";
import type { DifficultyTables } from "./difficulty-tables";
import { fitPenalisedLogistic, type LogisticRows } from "./logistic-objective";
import type { TrainingSequence } from "./sequences";

/** Item and objective vocabularies of the graded rows, each item with the indices of its distinct objectives. */
function indexItems(seqs: readonly TrainingSequence[]) {
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
  return { items, objs, itemObjs, n };
}

/**
 * One row per graded answer. Weight layout: [bias | θ (S learners) | b (I items) | c (K objectives) |
 * learning weights (2)]. Learning covariates: mean over the item's objectives of log(1 + earlier wins / fails).
 */
function raschRows(seqs: readonly TrainingSequence[], learning: boolean) {
  const { items, objs, itemObjs, n } = indexItems(seqs);
  const S = seqs.length,
    I = items.size,
    K = objs.size;
  const rowS = new Int32Array(n),
    rowI = new Int32Array(n),
    rowY = new Uint8Array(n);
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
      const ii = items.get(e.itemKey)!;
      rowI[r] = ii;
      counts[ii] = counts[ii]! + 1;
      const y = outcome(e.correct);
      rowY[r] = y;
      const ks = itemObjs[ii]!;
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
  const oT = 1,
    oB = 1 + S,
    oC = 1 + S + I,
    oP = 1 + S + I + K;
  const rows: LogisticRows = {
    n,
    y: rowY,
    predictor(w, q) {
      const ii = rowI[q]!;
      const ks = itemObjs[ii]!;
      let c = 0;
      for (const k of ks) c += w[oC + k]!;
      const m = ks.length || 1;
      return w[0]! + w[oT + rowS[q]!]! - w[oB + ii]! - c / m + w[oP]! * rowLw[q]! + w[oP + 1]! * rowLf[q]!;
    },
    addRow(g, q, res) {
      const ii = rowI[q]!;
      const ks = itemObjs[ii]!;
      const m = ks.length || 1;
      g[0] = g[0]! + res;
      g[oT + rowS[q]!] = g[oT + rowS[q]!]! + res;
      g[oB + ii] = g[oB + ii]! - res;
      for (const k of ks) g[oC + k] = g[oC + k]! - res / m;
      g[oP] = g[oP]! + res * rowLw[q]!;
      g[oP + 1] = g[oP + 1]! + res * rowLf[q]!;
    },
    addSquaredRow(h, q, scale) {
      const ii = rowI[q]!;
      const ks = itemObjs[ii]!;
      const m = ks.length || 1;
      h[0] = h[0]! + scale;
      h[oT + rowS[q]!] = h[oT + rowS[q]!]! + scale;
      h[oB + ii] = h[oB + ii]! + scale;
      for (const k of ks) h[oC + k] = h[oC + k]! + scale / (m * m);
      h[oP] = h[oP]! + scale * rowLw[q]! ** 2;
      h[oP + 1] = h[oP + 1]! + scale * rowLf[q]! ** 2;
    },
  };
  return { rows, items, objs, itemObjs, counts, offsets: { oB, oC }, size: 3 + S + I + K };
}

export function raschTables(seqs: readonly TrainingSequence[], itemPrec: number, maxIter: number, learning: boolean): DifficultyTables {
  const { rows, items, objs, itemObjs, counts, offsets, size } = raschRows(seqs, learning);
  const { oB, oC } = offsets;
  // Learner abilities shrunk with precision 1, item offsets with itemPrec, the rest barely; the bias is unpenalised.
  const precision = new Float64Array(size);
  for (let j = 1; j < size; j++) precision[j] = j < oB ? 1 : j < oC ? itemPrec : 0.01;
  const preconditionerPrecision = Float64Array.from(precision);
  preconditionerPrecision[0] = 1e-3;
  const w = fitPenalisedLogistic(rows, { maxIter, relTol: 1e-7, precision, preconditionerPrecision });
  const bias = w[0]!;
  const objectives = new Map<string, number>();
  for (const [k, j] of objs) objectives.set(k, w[oC + j]! - bias);
  const out = new Map<string, [number, number]>();
  for (const [key, ii] of items) {
    const ks = itemObjs[ii]!;
    let c = 0;
    for (const k of ks) c += w[oC + k]!;
    out.set(key, [w[oB + ii]! + c / (ks.length || 1) - bias, counts[ii]!]);
  }
  let gsum = 0;
  for (const d of objectives.values()) gsum += d;
  return { items: out, objectives, global: objs.size > 0 ? gsum / objs.size : -bias };
}
