/**
 * Each objective's prerequisites without those another of them already needs (the transitive
 * reduction): knowing that one implies knowing them, so listing them again would make the
 * beliefs (beliefs.ts) multiply the same doubt once per path, and an objective with several
 * prerequisites that share ancestors would read as all but unknown however much of the class knows
 * it. `prereqs` in topological (index) order; ancestor sets as bitsets (n ≤ the graph's 2,000
 * objectives: at most 0.5 MB).
 */
export function withoutImpliedPrerequisites(prereqs: readonly number[][]): number[][] {
  const n = prereqs.length;
  const words = (n + 31) >>> 5;
  const below = new Uint32Array(n * words);
  const has = (k: number, p: number) => (below[k * words + (p >>> 5)]! & (1 << (p & 31))) !== 0;
  for (let k = 0; k < n; k++)
    for (const p of prereqs[k]!) {
      below[k * words + (p >>> 5)]! |= 1 << (p & 31);
      for (let w = 0; w < words; w++) below[k * words + w]! |= below[p * words + w]!;
    }
  return prereqs.map((ps) => ps.filter((p) => !ps.some((q) => q !== p && has(q, p))));
}
