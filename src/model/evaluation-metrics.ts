/** Evaluation metrics of predictions (eval:kt, calibration; not the API's metric rows): rank-based AUC (ties averaged), RMSE, accuracy, log-loss. */

export function auc(p: ArrayLike<number>, y: ArrayLike<number>): number {
  const n = p.length;
  const idx = new Uint32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  idx.sort((a, b) => p[a]! - p[b]!);
  let rankSumPos = 0;
  let nPos = 0;
  let i = 0;
  while (i < n) {
    let j = i;
    const v = p[idx[i]!]!;
    while (j + 1 < n && p[idx[j + 1]!]! === v) j++;
    const avgRank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) {
      if (y[idx[k]!]! > 0) {
        rankSumPos += avgRank;
        nPos++;
      }
    }
    i = j + 1;
  }
  const nNeg = n - nPos;
  if (nPos === 0 || nNeg === 0) return NaN;
  return (rankSumPos - (nPos * (nPos + 1)) / 2) / (nPos * nNeg);
}

export function rmse(p: ArrayLike<number>, y: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < p.length; i++) {
    const d = p[i]! - y[i]!;
    s += d * d;
  }
  return Math.sqrt(s / Math.max(1, p.length));
}

export function accuracy(p: ArrayLike<number>, y: ArrayLike<number>): number {
  let c = 0;
  for (let i = 0; i < p.length; i++) if ((p[i]! >= 0.5 ? 1 : 0) === (y[i]! > 0 ? 1 : 0)) c++;
  return c / Math.max(1, p.length);
}

export function logLoss(p: ArrayLike<number>, y: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < p.length; i++) {
    const q = Math.min(1 - 1e-12, Math.max(1e-12, p[i]!));
    s -= y[i]! > 0 ? Math.log(q) : Math.log(1 - q);
  }
  return s / Math.max(1, p.length);
}
