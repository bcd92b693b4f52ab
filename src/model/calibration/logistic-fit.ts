/**
 * The logistic predictor: dense feature weights, item easiness, and per-objective easiness and count
 * weights, fitted by L2-regularised maximum likelihood on a replayed design.
 */

import { auc, logLoss } from "../evaluation-metrics";
import { NUM_FEATURES } from "../features";
import { sigmoid } from "../math";
import type { Design, Vocab } from "./design";
import { fitPenalisedLogistic, type LogisticRows } from "./logistic-objective";

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

/** Weight layout: [dense (F) | item easiness (nI) | objective easiness (nO) | objective win weights (nO) | objective fail weights (nO)]. */
export interface Layout {
  F: number;
  offI: number;
  offOB: number;
  offOW: number;
  offOF: number;
  size: number;
}

export function layout(vocab: Vocab): Layout {
  const F = NUM_FEATURES,
    nI = vocab.items.size,
    nO = vocab.objectives.size;
  return { F, offI: F, offOB: F + nI, offOW: F + nI + nO, offOF: F + nI + 2 * nO, size: F + nI + 3 * nO };
}

function linearPredictor(d: Design, L: Layout, w: Float64Array, r: number): number {
  const F = L.F;
  let z = 0;
  const base = r * F;
  for (let j = 0; j < F; j++) z += d.X[base + j]! * w[j]!;
  const it = d.item[r]!;
  if (it >= 0) z += w[L.offI + it]!;
  for (let q = d.objPtr[r]!, e = d.objPtr[r + 1]!; q < e; q++) {
    const k = d.objIdx[q]!;
    if (k < 0) continue;
    z += w[L.offOB + k]! + w[L.offOW + k]! * d.objLw[q]! + w[L.offOF + k]! * d.objLf[q]!;
  }
  return z;
}

function designRows(d: Design, L: Layout): LogisticRows {
  const F = L.F;
  return {
    n: d.n,
    y: d.y,
    predictor: (w, r) => linearPredictor(d, L, w, r),
    addRow(g, r, res) {
      const base = r * F;
      for (let j = 0; j < F; j++) g[j] = g[j]! + res * d.X[base + j]!;
      const it = d.item[r]!;
      if (it >= 0) g[L.offI + it] = g[L.offI + it]! + res;
      for (let q = d.objPtr[r]!, e = d.objPtr[r + 1]!; q < e; q++) {
        const k = d.objIdx[q]!;
        if (k < 0) continue;
        g[L.offOB + k] = g[L.offOB + k]! + res;
        g[L.offOW + k] = g[L.offOW + k]! + res * d.objLw[q]!;
        g[L.offOF + k] = g[L.offOF + k]! + res * d.objLf[q]!;
      }
    },
    addSquaredRow(h, r, scale) {
      const base = r * F;
      for (let j = 0; j < F; j++) {
        const x = d.X[base + j]!;
        h[j] = h[j]! + scale * x * x;
      }
      const it = d.item[r]!;
      if (it >= 0) h[L.offI + it] = h[L.offI + it]! + scale;
      for (let q = d.objPtr[r]!, e = d.objPtr[r + 1]!; q < e; q++) {
        const k = d.objIdx[q]!;
        if (k < 0) continue;
        const lw = d.objLw[q]!,
          lf = d.objLf[q]!;
        h[L.offOB + k] = h[L.offOB + k]! + scale;
        h[L.offOW + k] = h[L.offOW + k]! + scale * lw * lw;
        h[L.offOF + k] = h[L.offOF + k]! + scale * lf * lf;
      }
    },
  };
}

export function fitLogistic(d: Design, L: Layout, l2: L2Config, maxIter: number): Float64Array {
  const precision = new Float64Array(L.size);
  for (let j = 0; j < L.F; j++) precision[j] = j === 0 ? 1e-4 : l2.dense;
  precision.fill(l2.item, L.offI, L.offOB);
  precision.fill(l2.objective, L.offOB, L.offOW);
  precision.fill(l2.counts, L.offOW, L.size);
  return fitPenalisedLogistic(designRows(d, L), { maxIter, relTol: 1e-8, precision });
}

export function scoreDesign(d: Design, L: Layout, w: Float64Array): { auc: number; logLoss: number } {
  const p = new Float64Array(d.n);
  for (let r = 0; r < d.n; r++) p[r] = sigmoid(linearPredictor(d, L, w, r));
  return { auc: auc(p, d.y), logLoss: logLoss(p, d.y) };
}
