/** Difficulties as smoothed correct rates on the logit scale (objectives pulled to the global rate, items to their objectives'). */
import { logit, sigmoid, uniq } from "../math";
import { outcome } from "../update";
import type { DifficultyTables } from "./difficulty-tables";
import type { TrainingSequence } from "./sequences";

export function rateTables(seqs: readonly TrainingSequence[], objPrior: number, itemPrior: number): DifficultyTables {
  let N = 0,
    W = 0;
  const on = new Map<string, [number, number]>();
  const inn = new Map<string, [number, number, readonly string[]]>();
  for (const s of seqs) {
    for (const e of s) {
      if (e.kind !== "graded") continue;
      const y = outcome(e.correct);
      N++;
      W += y;
      for (const k of uniq(e.objectives)) {
        const c = on.get(k);
        if (c) {
          c[0]++;
          c[1] += y;
        } else on.set(k, [1, y]);
      }
      const c = inn.get(e.itemKey);
      if (c) {
        c[0]++;
        c[1] += y;
      } else inn.set(e.itemKey, [1, y, e.objectives]);
    }
  }
  const p0 = (W + 1) / (N + 2);
  const objectives = new Map<string, number>();
  for (const [k, [n, w]] of on) objectives.set(k, -logit((w + objPrior * p0) / (n + objPrior)));
  const items = new Map<string, [number, number]>();
  for (const [key, [n, w, objs]] of inn) {
    let s = 0,
      c = 0;
    for (const k of uniq(objs)) {
      const d = objectives.get(k);
      if (d !== undefined) {
        s += d;
        c++;
      }
    }
    const pPrior = sigmoid(-(c > 0 ? s / c : -logit(p0)));
    items.set(key, [-logit((w + itemPrior * pPrior) / (n + itemPrior)), n]);
  }
  return { items, objectives, global: -logit(p0) };
}
