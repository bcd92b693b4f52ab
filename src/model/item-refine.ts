/**
 * Online refinement of item parameters: after an observed answer with predicted probability p, the
 * item's easiness moves by a small step toward the evidence (and its filter difficulty the opposite
 * way). Steps shrink with the item's observation count; the total drift is bounded by refine.maxShift.
 * Mutates `params` in place (call it on the service's shared copy, never during an offline evaluation).
 */
import { type ItemRef, itemDifficulty } from "./features";
import { clamp } from "./math";
import type { ModelParams } from "./params";
import { outcome } from "./update";

export function refineItem(params: ModelParams, item: ItemRef, correct: boolean | number, predicted: number): void {
  const y = outcome(correct);
  let e = params.items[item.itemKey];
  if (!e) {
    e = [0, itemDifficulty(params, item), 0, 0];
    params.items[item.itemKey] = e;
  }
  const step = params.refine.step / Math.sqrt(1 + e[2] / 20);
  const target = clamp(e[3] + step * (y - predicted), -params.refine.maxShift, params.refine.maxShift);
  const delta = target - e[3];
  e[0] += delta;
  e[1] -= delta;
  e[2] += 1;
  e[3] = target;
}
