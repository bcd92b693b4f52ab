/** Numeric helpers of the analytics math. Pure and deterministic. */
import { normalQuantile, sigmoid } from "../model/math";

export { normalQuantile, sigmoid };

/** Complementary error function (Numerical Recipes erfcc, |relative error| < 1.2e-7). */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** Standard normal CDF. */
export function normalCdf(x: number): number {
  if (x === Infinity) return 1;
  if (x === -Infinity) return 0;
  return 0.5 * erfc(-x / Math.SQRT2);
}

const nodeCache = new Map<number, Float64Array>();

/**
 * `count` equal-probability nodes of the standard normal: z_j = Φ⁻¹((j + ½)/count). The mean of
 * f(z_j) is the midpoint rule for E[f(Z)] in probability space; it is deterministic and, unlike
 * Gauss–Hermite nodes, keeps every node inside the bulk of the distribution.
 */
export function normalNodes(count: number): Float64Array {
  let nodes = nodeCache.get(count);
  if (!nodes) {
    nodes = new Float64Array(count);
    for (let j = 0; j < count; j++) nodes[j] = normalQuantile((j + 0.5) / count);
    // Rescale so the nodes have unit variance exactly (the midpoint rule under-covers the tails).
    let s = 0;
    for (let j = 0; j < count; j++) s += (nodes[j] as number) ** 2;
    const f = 1 / Math.sqrt(s / count);
    for (let j = 0; j < count; j++) nodes[j] = (nodes[j] as number) * f;
    nodeCache.set(count, nodes);
  }
  return nodes;
}

/** Binomial(n, p) probabilities P(X = 0..n), written into `out` (length ≥ n + 1). */
export function binomialPmf(n: number, p: number, out: Float64Array): Float64Array {
  if (p <= 0 || p >= 1) {
    out.fill(0, 0, n + 1);
    out[p <= 0 ? 0 : n] = 1;
    return out;
  }
  const q = 1 - p;
  const start = q ** n;
  if (start > 1e-280) {
    // Small n (the usual case): P(0) = qⁿ, then the ratio recursion.
    const r = p / q;
    out[0] = start;
    for (let x = 0; x < n; x++) out[x + 1] = ((out[x] as number) * r * (n - x)) / (x + 1);
    return out;
  }
  // Large n: start at the mode and recurse outwards, then normalise (no underflow).
  const mode = Math.min(n, Math.floor((n + 1) * p));
  const r = p / q;
  out[mode] = 1;
  let total = 1;
  for (let x = mode + 1; x <= n; x++) {
    const v = ((out[x - 1] as number) * r * (n - x + 1)) / x;
    out[x] = v;
    total += v;
  }
  for (let x = mode - 1; x >= 0; x--) {
    const v = ((out[x + 1] as number) * (x + 1)) / (r * (n - x));
    out[x] = v;
    total += v;
  }
  for (let x = 0; x <= n; x++) out[x] = (out[x] as number) / total;
  return out;
}

const hermiteCache = new Map<number, { nodes: Float64Array; weights: Float64Array }>();

/**
 * Gauss–Hermite rule for the standard normal: Σ w_j f(z_j) ≈ E[f(Z)], exact for polynomials of degree
 * < 2·count (Newton iteration on the Hermite polynomials, Numerical Recipes `gauher`, rescaled).
 */
export function hermiteRule(count: number): { nodes: Float64Array; weights: Float64Array } {
  let rule = hermiteCache.get(count);
  if (rule) return rule;
  const n = count;
  const x = new Float64Array(n);
  const w = new Float64Array(n);
  const pim4 = 0.7511255444649425;
  const m = Math.floor((n + 1) / 2);
  let z = 0;
  for (let i = 0; i < m; i++) {
    if (i === 0) z = Math.sqrt(2 * n + 1) - 1.85575 * (2 * n + 1) ** -0.16667;
    else if (i === 1) z -= (1.14 * n ** 0.426) / z;
    else if (i === 2) z = 1.86 * z - 0.86 * (x[0] as number);
    else if (i === 3) z = 1.91 * z - 0.91 * (x[1] as number);
    else z = 2 * z - (x[i - 2] as number);
    let pp = 0;
    for (let it = 0; it < 100; it++) {
      let p1 = pim4;
      let p2 = 0;
      for (let j = 0; j < n; j++) {
        const p3 = p2;
        p2 = p1;
        p1 = z * Math.sqrt(2 / (j + 1)) * p2 - Math.sqrt(j / (j + 1)) * p3;
      }
      pp = Math.sqrt(2 * n) * p2;
      const z1 = z;
      z = z1 - p1 / pp;
      if (Math.abs(z - z1) <= 1e-14) break;
    }
    x[i] = z;
    x[n - 1 - i] = -z;
    w[i] = 2 / (pp * pp);
    w[n - 1 - i] = w[i] as number;
  }
  const nodes = new Float64Array(n);
  const weights = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    nodes[i] = Math.SQRT2 * (x[i] as number);
    weights[i] = (w[i] as number) / Math.sqrt(Math.PI);
  }
  rule = { nodes, weights };
  hermiteCache.set(count, rule);
  return rule;
}

/** 53-bit string hash (cyrb53): stable identifiers for bounded sets of module ids. */
export function hash53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
