/**
 * Feature encoding of (learner state, item) -> inputs of the logistic predictor.
 * Shared verbatim by online prediction and offline calibration.
 */
import type { LearnerState, ObjectiveState } from "./learner-state";
import { DECAY_TAU_MS, type ModelParams } from "./params";

export interface ItemRef {
  /** Module / item id. */
  itemKey: string;
  /** Learning objectives (skills) the item assesses; at least one. */
  objectives: readonly string[];
}

export const FEATURE_NAMES = [
  "bias",
  "itemEasinessPrior", // −d_item of the filter (prior easiness, also for unseen items)
  "abilityGlobal", // μ_global
  "abilityObjective", // mean over the item's objectives of μ_k
  "abilitySd", // sd of the filter's logit
  "filterLogit", // the filter's own (variance-corrected) logit
  "logWinsTotal",
  "logFailsTotal",
  "logWinsObj", // mean_k log(1+wins_k)
  "logFailsObj",
  "emaFastObj", // mean_k EWMA(2y−1), fast
  "emaSlowObj",
  "emaFastTotal",
  "emaSlowTotal",
  "lastObj", // mean_k last outcome (−1/0/1)
  "streakWinObj", // mean_k log(1+correct streak)
  "streakFailObj",
  "logItemAttempts", // prior attempts of this very item
  "itemLast", // 2·(wins/attempts)−1 on this item, 0 if never
  "lastTotal",
  "newObjFraction", // fraction of the item's objectives never attempted
  "logHoursSinceObj", // mean_k log(1+hours since objective last practised)
  "logHoursSinceAny",
  "logUngradedObj", // mean_k log(1+ungraded opportunities)
  "logItemObservations", // log(1+number of calibration observations of the item)
  "itemEasinessReliable", // −d_item · n/(n+10): the item prior weighted by its reliability
  "residualObj", // mean_k EWMA of the filter residual (correct − predicted)
  "residualTotal",
  "logEventsSinceObj", // mean_k log(1+events since the objective was last practised): interleaving / forgetting proxy
  "logDecayedAttemptsObj", // mean_k log(1+attempts decayed with a 1-day time constant), 0 without timestamps
  "logDecayedWinsObj",
  "logDecayedAttemptsTotal",
  "logDecayedWinsTotal",
] as const;

/** Decay factor from the time of an objective's last event to `timeMs` (1 when either is unknown). */
export function decayTo(o: ObjectiveState, timeMs: number): number {
  return timeMs > 0 && o.t > 0 && timeMs > o.t ? Math.exp(-(timeMs - o.t) / DECAY_TAU_MS) : 1;
}

export const NUM_FEATURES = FEATURE_NAMES.length;

/** Filter difficulty of an item: calibrated value, else mean of its objectives', else global. */
export function itemDifficulty(params: ModelParams, item: ItemRef): number {
  const e = params.items[item.itemKey];
  if (e) return e[1];
  let s = 0;
  let c = 0;
  for (const k of item.objectives) {
    const o = params.objectives[k];
    if (o) {
      s += o[3];
      c++;
    }
  }
  return c > 0 ? s / c : params.globalDifficulty;
}

const EMPTY: ObjectiveState = { mu: 0, v: 0, n: 0, w: 0, u: 0, ef: 0, es: 0, last: 0, streak: 0, t: 0, r: 0, da: 0, dw: 0, q: 0 };

/**
 * The filter's linear predictor for an item: z = μ_g + (1/m)Σ_k μ_k − d, with variance
 * s² = v_g + (1/m²)Σ_k v_k (objectives never seen contribute their prior variance).
 */
export function filterLogit(state: LearnerState, params: ModelParams, item: ItemRef, d: number): { z: number; s2: number } {
  const m = item.objectives.length || 1;
  let z = state.global.mu - d;
  let s2 = state.global.v;
  const pv = params.filter.priorVarObjective;
  for (const k of item.objectives) {
    const o = state.objectives[k];
    if (o) {
      z += o.mu / m;
      s2 += o.v / (m * m);
    } else {
      s2 += pv / (m * m);
    }
  }
  return { z, s2 };
}

/**
 * Writes the dense features into `out` (length NUM_FEATURES). `timeMs` is the event time (0 = unknown).
 */
export function encodeFeatures(state: LearnerState, params: ModelParams, item: ItemRef, timeMs: number, out: Float64Array): void {
  const objs = item.objectives;
  const m = objs.length || 1;
  const d = itemDifficulty(params, item);
  const { z, s2 } = filterLogit(state, params, item, d);
  const g = state.global;
  let muO = 0,
    lw = 0,
    lf = 0,
    ef = 0,
    es = 0,
    last = 0,
    sw = 0,
    sf = 0,
    fresh = 0,
    hrs = 0,
    lu = 0,
    res = 0,
    gap = 0,
    lda = 0,
    ldw = 0;
  for (const k of objs) {
    const o = state.objectives[k] ?? EMPTY;
    muO += o.mu;
    lw += Math.log1p(o.w);
    lf += Math.log1p(o.n - o.w);
    ef += o.ef;
    es += o.es;
    last += o.last;
    if (o.streak > 0) sw += Math.log1p(o.streak);
    else if (o.streak < 0) sf += Math.log1p(-o.streak);
    if (o.n === 0) fresh += 1;
    if (timeMs > 0 && o.t > 0 && timeMs > o.t) hrs += Math.log1p((timeMs - o.t) / 3.6e6);
    lu += Math.log1p(o.u);
    res += o.r;
    const f = decayTo(o, timeMs);
    lda += Math.log1p(o.da * f);
    ldw += Math.log1p(o.dw * f);
    if (o.q > 0) gap += Math.log1p(state.seq - o.q);
  }
  const it = state.items[item.itemKey];
  let i = 0;
  out[i++] = 1;
  out[i++] = -d;
  out[i++] = g.mu;
  out[i++] = muO / m;
  out[i++] = Math.sqrt(s2);
  out[i++] = z / Math.sqrt(1 + (Math.PI * s2) / 8);
  out[i++] = Math.log1p(g.w);
  out[i++] = Math.log1p(g.n - g.w);
  out[i++] = lw / m;
  out[i++] = lf / m;
  out[i++] = ef / m;
  out[i++] = es / m;
  out[i++] = g.ef;
  out[i++] = g.es;
  out[i++] = last / m;
  out[i++] = sw / m;
  out[i++] = sf / m;
  out[i++] = it ? Math.log1p(it[0]) : 0;
  out[i++] = it && it[0] > 0 ? (2 * it[1]) / it[0] - 1 : 0;
  out[i++] = g.last;
  out[i++] = fresh / m;
  out[i++] = hrs / m;
  out[i++] = timeMs > 0 && g.t > 0 && timeMs > g.t ? Math.log1p((timeMs - g.t) / 3.6e6) : 0;
  out[i++] = lu / m;
  const nObs = params.items[item.itemKey]?.[2] ?? 0;
  out[i++] = Math.log1p(nObs);
  out[i++] = (-d * nObs) / (nObs + 10);
  out[i++] = res / m;
  out[i++] = g.r;
  out[i++] = gap / m;
  out[i++] = lda / m;
  out[i++] = ldw / m;
  const fg = decayTo(g, timeMs);
  out[i++] = Math.log1p(g.da * fg);
  out[i++] = Math.log1p(g.dw * fg);
}
