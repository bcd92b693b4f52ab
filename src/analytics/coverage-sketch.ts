/**
 * Coverage of an objective as a bottom-k sketch: the smallest COVERAGE_SKETCH 53-bit hashes of the
 * answered assessment module ids, ascending. Union is a join (merge order and repeats do not matter),
 * counts are exact up to COVERAGE_SKETCH distinct modules and estimated above.
 */
import { hash53 } from "./numeric";

/** Distinct answered modules per objective counted exactly; above it the count is estimated. */
export const COVERAGE_SKETCH = 16;
const HASH_SPACE = 2 ** 53;

/** Coverage sketch helpers (usable by the Durable Object to keep its own sketch per objective). */
export function moduleHash(moduleId: string): number {
  return hash53(moduleId);
}

/** Union of two sketches, bottom-k. Pure; inputs are not modified. */
export function unionSketch(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (out.length < COVERAGE_SKETCH && (i < a.length || j < b.length)) {
    const x = i < a.length ? a[i]! : Infinity;
    const y = j < b.length ? b[j]! : Infinity;
    const v = Math.min(x, y);
    if (x === v) i++;
    if (y === v) j++;
    if (out.length === 0 || out[out.length - 1] !== v) out.push(v);
  }
  return out;
}

/** A well-formed sketch of any list of hashes (sorted, distinct, the smallest COVERAGE_SKETCH). */
export function canonicalSketch(hashes: readonly number[]): number[] {
  return unionSketch(
    [...hashes].sort((x, y) => x - y),
    [],
  );
}

/** The sketch with one more answered module. */
export function addAnswered(sketch: readonly number[] | undefined, moduleId: string): number[] {
  return unionSketch(sketch ?? [], [moduleHash(moduleId)]);
}

/** Distinct answered modules: exact below COVERAGE_SKETCH, else the k-minimum-values estimate (k−1)/h_k. */
export function answeredCount(sketch: readonly number[]): number {
  if (sketch.length < COVERAGE_SKETCH) return sketch.length;
  const kth = sketch[COVERAGE_SKETCH - 1]! / HASH_SPACE;
  return Math.max(COVERAGE_SKETCH, Math.round((COVERAGE_SKETCH - 1) / Math.max(kth, 1e-12)));
}

/** Coverage of an objective: distinct answered assessment modules ÷ requirement, capped at 1. */
export function coverage(sketch: readonly number[] | undefined, requirement: number): number {
  if (!sketch || requirement <= 0) return sketch && sketch.length > 0 ? 1 : 0;
  return Math.min(1, answeredCount(sketch) / requirement);
}
