/** Minimal L-BFGS with backtracking (Armijo) line search, for smooth convex objectives. */

export type Objective = (w: Float64Array, grad: Float64Array) => number;

export interface LbfgsOptions {
  maxIter?: number;
  memory?: number;
  /** Stop when the relative decrease of the objective over an iteration is below this. */
  relTol?: number;
  /**
   * Diagonal preconditioner: the search runs on u = w / scale (scale_j ≈ 1/sqrt(H_jj)), which makes
   * badly scaled problems converge in far fewer iterations. Result is returned in w coordinates.
   */
  scale?: Float64Array;
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

export function lbfgs(fn0: Objective, w00: Float64Array, opts: LbfgsOptions = {}): { w: Float64Array; f: number; iters: number } {
  const n = w00.length;
  const sc = opts.scale;
  let fn = fn0;
  let w0 = w00;
  if (sc) {
    const wt = new Float64Array(n);
    fn = (u, gu) => {
      for (let i = 0; i < n; i++) wt[i] = u[i]! * sc[i]!;
      const f = fn0(wt, gu);
      for (let i = 0; i < n; i++) gu[i] = gu[i]! * sc[i]!;
      return f;
    };
    w0 = new Float64Array(n);
    for (let i = 0; i < n; i++) w0[i] = w00[i]! / sc[i]!;
  }
  const maxIter = opts.maxIter ?? 200;
  const M = opts.memory ?? 10;
  const relTol = opts.relTol ?? 1e-7;
  const w = Float64Array.from(w0);
  const g = new Float64Array(n);
  let f = fn(w, g);
  const S: Float64Array[] = [];
  const Y: Float64Array[] = [];
  const rho: number[] = [];
  const dir = new Float64Array(n);
  const wNew = new Float64Array(n);
  const gNew = new Float64Array(n);
  const alpha = new Array<number>(M).fill(0);
  let iters = 0;
  for (; iters < maxIter; iters++) {
    // two-loop recursion: dir = -H g
    for (let i = 0; i < n; i++) dir[i] = -g[i]!;
    for (let j = S.length - 1; j >= 0; j--) {
      const a = rho[j]! * dot(S[j]!, dir);
      alpha[j] = a;
      const y = Y[j]!;
      for (let i = 0; i < n; i++) dir[i] = dir[i]! - a * y[i]!;
    }
    if (S.length > 0) {
      const sl = S[S.length - 1]!;
      const yl = Y[Y.length - 1]!;
      const gamma = dot(sl, yl) / dot(yl, yl);
      for (let i = 0; i < n; i++) dir[i] = dir[i]! * gamma;
    } else {
      const gn = Math.sqrt(dot(g, g)) || 1;
      for (let i = 0; i < n; i++) dir[i] = dir[i]! / gn;
    }
    for (let j = 0; j < S.length; j++) {
      const b = rho[j]! * dot(Y[j]!, dir);
      const s = S[j]!;
      const a = alpha[j]!;
      for (let i = 0; i < n; i++) dir[i] = dir[i]! + (a - b) * s[i]!;
    }
    let gd = dot(g, dir);
    if (!(gd < 0)) {
      for (let i = 0; i < n; i++) dir[i] = -g[i]!;
      gd = dot(g, dir);
      S.length = 0;
      Y.length = 0;
      rho.length = 0;
    }
    let step = 1;
    let fNew = Infinity;
    for (let ls = 0; ls < 30; ls++) {
      for (let i = 0; i < n; i++) wNew[i] = w[i]! + step * dir[i]!;
      fNew = fn(wNew, gNew);
      if (fNew <= f + 1e-4 * step * gd) break;
      step *= 0.5;
    }
    if (!(fNew < f)) break;
    const s = new Float64Array(n);
    const y = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      s[i] = wNew[i]! - w[i]!;
      y[i] = gNew[i]! - g[i]!;
    }
    const sy = dot(s, y);
    if (sy > 1e-12) {
      S.push(s);
      Y.push(y);
      rho.push(1 / sy);
      if (S.length > M) {
        S.shift();
        Y.shift();
        rho.shift();
      }
    }
    const rel = (f - fNew) / Math.max(1, Math.abs(f));
    w.set(wNew);
    g.set(gNew);
    f = fNew;
    if (rel < relTol) {
      iters++;
      break;
    }
  }
  if (sc) for (let i = 0; i < n; i++) w[i] = w[i]! * sc[i]!;
  return { w, f, iters };
}
