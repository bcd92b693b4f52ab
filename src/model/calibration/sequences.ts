/** Training sequences (one per learner, in order) and the deterministic ways calibration splits them. */
import { mulberry32 } from "../math";
import type { LearnerEvent } from "../update";

export type TrainingSequence = readonly LearnerEvent[];

/** `xs` shuffled with `seed` and dealt round-robin into `k` folds. */
export function splitFolds<T>(xs: readonly T[], k: number, seed: number): T[][] {
  const rnd = mulberry32(seed);
  const order = xs.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  const folds: T[][] = Array.from({ length: k }, () => []);
  for (const [pos, idx] of order.entries()) folds[pos % k]?.push(xs[idx]!);
  return folds;
}

/** `xs` in the order `splitFolds` shuffles it with `seed`. */
export function shuffled<T>(xs: readonly T[], seed: number): T[] {
  return splitFolds(xs, xs.length, seed).map((f) => f[0]!);
}

/** Deterministic subsample of learners totalling roughly `maxRows` graded rows (all if fewer). */
export function capRows(seqs: readonly TrainingSequence[], maxRows: number, seed: number): TrainingSequence[] {
  let total = 0;
  for (const s of seqs) total += s.length;
  if (total <= maxRows) return [...seqs];
  const out: TrainingSequence[] = [];
  let rows = 0;
  for (const s of shuffled(seqs, seed)) {
    if (rows >= maxRows) break;
    out.push(s);
    rows += s.length;
  }
  return out;
}
