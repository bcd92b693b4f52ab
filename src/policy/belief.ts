/**
 * The model's belief about one objective, as the policy reads it.
 *
 * Predicted mastery of objective k := the learner model's predicted probability that the learner
 * answers an unseen assessing item of average difficulty on k correctly now (the calibrated
 * predictor, `predictLogit`, on a fresh item aligned with k only). Its uncertainty comes from the
 * Gaussian ability filter: the predictor's logit z depends on the global ability mean μ_g and the
 * objective offset μ_k (features abilityGlobal, abilityObjective, filterLogit), so by the delta
 * method Var(z) = a_g² v_g + a_k² v_k with a_g = w_abilityGlobal + w_filterLogit/c and
 * a_k = w_abilityObjective + w_filterLogit/c, c = √(1 + π(v_g + v_k)/8).
 * The predictor reacts to the last few answers (streak and recency features, calibrated on
 * ASSISTments); the filter accumulates the whole history slowly. Where the predictor is more
 * optimistic than the filter's own expectation zf, the excess is model uncertainty too: it is added
 * to the variance, Var(z) += max(0, z − zf)², so a lucky streak after a long run of failures does not
 * make a confident belief, while a learner whose filter agrees gets a tight one.
 * P(true predicted mastery ≥ m) = Φ((z − logit m)/sd).
 */
import { type LearnerState, type ModelParams, predictLogit } from "../model";
import { normalQuantile, sigmoid } from "../model/math";

/** An item key no learner state or item bank holds: "an unseen item of average difficulty". */
export const FRESH_ITEM = "\u0000policy:unseen";

export interface Belief {
  /** predicted mastery (probability) */
  p: number;
  /** its logit */
  z: number;
  /** logit of the ability filter's own expected P(correct) on an average item of the objective */
  zf: number;
  /** standard deviation of z: ability uncertainty and the predictor's excess over the filter (see above) */
  sd: number;
  /** graded attempts and correct answers on the objective (model counters) */
  n: number;
  w: number;
}

interface Sensitivity {
  ag: number;
  ao: number;
  fl: number;
}

// Keyed by the dense weight array: the service hands the model per-event copies of SERVICE_PARAMS
// ({ ...SERVICE_PARAMS, items }) that share it.
const sensitivities = new WeakMap<readonly number[], Sensitivity>();

function sensitivity(params: ModelParams): Sensitivity {
  let s = sensitivities.get(params.dense);
  if (!s) {
    const w = (name: string) => {
      const i = params.featureNames.indexOf(name);
      return i < 0 ? 0 : (params.dense[i] ?? 0);
    };
    s = { ag: w("abilityGlobal"), ao: w("abilityObjective"), fl: w("filterLogit") };
    sensitivities.set(params.dense, s);
  }
  return s;
}

export function belief(state: LearnerState, params: ModelParams, objective: string, timeMs = 0): Belief {
  const z = predictLogit(state, params, { itemKey: FRESH_ITEM, objectives: [objective] }, timeMs);
  const o = state.objectives[objective];
  const vg = state.global.v;
  const vk = o ? o.v : params.filter.priorVarObjective;
  const s = sensitivity(params);
  const c = Math.sqrt(1 + (Math.PI * (vg + vk)) / 8);
  const ag = s.ag + s.fl / c;
  const ak = s.ao + s.fl / c;
  // The filter's expected P(correct) on an average item (proficiency()): mean ability minus the
  // objective's difficulty, averaged over the ability uncertainty.
  const entry = params.objectives[objective];
  const d = entry ? entry[3] : params.globalDifficulty;
  const mean = state.global.mu + (o ? o.mu : 0);
  const zf = (mean - d) / c;
  const excess = Math.max(0, z - zf);
  const sd = Math.sqrt(ag * ag * vg + ak * ak * vk + excess * excess);
  return { p: sigmoid(z), z, zf, sd, n: o ? o.n : 0, w: o ? o.w : 0 };
}

/** Lower credible bound of the predicted-mastery logit at `confidence` (e.g. 0.8). */
export function lowerLogit(b: Belief, confidence: number): number {
  return b.z - normalQuantile(confidence) * b.sd;
}
