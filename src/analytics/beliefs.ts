/**
 * Account-level ability beliefs read from a projection: the registrations' Gaussian beliefs combined
 * as independent evidence on top of the common prior.
 *
 * Registration r believes θ_k ~ N(m_r, s_r) on objective k, with m_r = μ_g + μ_k and
 * s_r = v_g + v_k (μ_k = 0 and v_k = the prior variance V_k when r never touched k). Every
 * registration started from the same prior N(0, P0), P0 = V_g + V_k, and saw different answers, so
 * the combined belief is the product of their likelihoods times the prior:
 *
 *   1/s = 1/P0 + Σ_r (1/s_r − 1/P0),   m = s · Σ_r m_r/s_r.
 *
 * A registration that saw nothing contributes nothing. Before combining, an objective's offset
 * variance grows with the time since its last event (the model's forgetting, φ per day, capped at
 * V_k), so stale evidence weighs less and a belief read today matches what the model would use at
 * the learner's next answer. The variance shared by all objectives (the global ability) is combined
 * the same way and used for the correlation between objectives in group scores.
 */
import type { FilterParams } from "../model/params";
import type { AbilityBelief } from "./calibration";
import type { AccountGraphProjection } from "./projection";

export type BeliefFilter = Pick<FilterParams, "priorVarGlobal" | "priorVarObjective" | "forgetVarPerDay">;

const DAY_MS = 86_400_000;

/** Combined belief on one objective (the prior when nothing is known). */
export function objectiveBelief(projection: AccountGraphProjection | undefined, objectiveId: string, nowMs: number, filter: BeliefFilter): AbilityBelief {
  const vg0 = filter.priorVarGlobal;
  const vk0 = filter.priorVarObjective;
  const p0 = vg0 + vk0;
  let precision = 1 / p0;
  let eta = 0;
  let gPrecision = 1 / vg0;
  let evidence = 0;
  if (projection) {
    const entries = projection.objectives[objectiveId]?.beliefs ?? {};
    for (const [id, reg] of Object.entries(projection.registrations)) {
      if (reg.removed || !reg.global) continue;
      const [mg, vgRaw] = reg.global;
      const vg = Math.min(vg0, Math.max(1e-6, vgRaw));
      const e = entries[id];
      let mk = 0;
      let vk = vk0;
      if (e) {
        mk = e[0];
        vk = Math.max(1e-6, e[1]);
        if (nowMs > 0 && e[3] > 0 && nowMs > e[3]) vk += (filter.forgetVarPerDay * (nowMs - e[3])) / DAY_MS;
        vk = Math.min(vk0, vk);
        evidence += e[2];
      }
      const s = Math.min(p0, vg + vk);
      precision += 1 / s - 1 / p0;
      eta += (mg + mk) / s;
      gPrecision += 1 / vg - 1 / vg0;
    }
  }
  const variance = 1 / precision;
  return { mean: eta * variance, variance, sharedVariance: Math.min(variance, 1 / gPrecision), evidence };
}
