/**
 * Runs the three strategies on every student of a world. Strategy A's recommendations come from a
 * TutorFactory: in-process (offline.ts) or over HTTP (a later driver); B, C and the metrics are shared.
 */
import { type Summary, summarize } from "./metrics";
import { type Run, runA, runB, runC, type TutorFactory } from "./strategies";
import type { World } from "./world";

export interface WorldResult {
  a: Run[];
  b: Run[];
  c: Run[];
  summary: Summary;
}

/** Cap on steps per student: generous against the scope size (B needs ≥ 3 per objective; slow learners on deep scopes need many more). */
export function stepCap(world: World): number {
  return Math.max(300, 20 * world.scope.length);
}

export async function runWorld(world: World, factory: TutorFactory, options: { concurrency?: number } = {}): Promise<WorldResult> {
  const cap = stepCap(world);
  const a: Run[] = new Array(world.students.length);
  const concurrency = Math.max(1, options.concurrency ?? 1);
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= world.students.length) return;
      const s = world.students[i]!;
      a[i] = await runA(world, s, await factory(world, s), cap);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const b = world.students.map((s) => runB(world, s, cap));
  const c = world.students.map((s) => runC(world, s, cap));
  return { a, b, c, summary: summarize(a, b, c) };
}
