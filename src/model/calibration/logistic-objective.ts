/**
 * The penalised logistic likelihood both calibration fits minimise (the Rasch difficulty fit and the
 * predictor's weights): loss, gradient and diagonal preconditioner written once; each fit supplies only
 * how a row's linear predictor is formed from the weights.
 */
import { lbfgs } from "../lbfgs";

/** A design of binary-outcome rows as the objective sees it. */
export interface LogisticRows {
  readonly n: number;
  /** Outcome of row r (0 or 1). */
  readonly y: ArrayLike<number>;
  /** Linear predictor of row r: x_r · w. */
  predictor(w: Float64Array, r: number): number;
  /** out += scale · x_r (the gradient's contribution of row r). */
  addRow(out: Float64Array, r: number, scale: number): void;
  /** out += scale · x_r² elementwise (row r's contribution to the diagonal of the Hessian bound). */
  addSquaredRow(out: Float64Array, r: number, scale: number): void;
}

export interface LogisticFitOptions {
  maxIter: number;
  relTol: number;
  /** Gaussian prior precision of each weight (0: unpenalised). */
  precision: Float64Array;
  /** Precision added to the curvature for the preconditioner only; defaults to `precision`. */
  preconditionerPrecision?: Float64Array;
}

/** Minimises Σ logloss(y_r, x_r·w) + ½ Σ precision_j w_j² by preconditioned L-BFGS from w = 0. */
export function fitPenalisedLogistic(rows: LogisticRows, o: LogisticFitOptions): Float64Array {
  const size = o.precision.length;
  const prec = o.precision;
  const objective = (w: Float64Array, g: Float64Array): number => {
    g.fill(0);
    let loss = 0;
    for (let r = 0; r < rows.n; r++) {
      const z = rows.predictor(w, r);
      const y = rows.y[r]!;
      // Stable log(1 + e^z) − y·z and its derivative sigmoid(z) − y.
      const ez = Math.exp(-Math.abs(z));
      loss += Math.max(z, 0) + Math.log1p(ez) - y * z;
      rows.addRow(g, r, (z >= 0 ? 1 / (1 + ez) : ez / (1 + ez)) - y);
    }
    for (let j = 0; j < size; j++) {
      const pj = prec[j]!;
      if (pj === 0) continue;
      const wj = w[j]!;
      loss += 0.5 * pj * wj * wj;
      g[j] = g[j]! + pj * wj;
    }
    return loss;
  };
  // Diagonal preconditioner 1/sqrt(H_jj), with the logistic curvature bounded by 1/4 per row.
  const scale = new Float64Array(size);
  for (let r = 0; r < rows.n; r++) rows.addSquaredRow(scale, r, 0.25);
  const prior = o.preconditionerPrecision ?? prec;
  for (let j = 0; j < size; j++) scale[j] = 1 / Math.sqrt(scale[j]! + prior[j]!);
  return lbfgs(objective, new Float64Array(size), { maxIter: o.maxIter, relTol: o.relTol, scale }).w;
}
