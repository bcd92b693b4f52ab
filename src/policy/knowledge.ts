/**
 * Evidence of knowing (docs/recommendation.md, "Knowledge evidence"): how likely the learner knows
 * an objective now, from the learner's own answers on it and on the objectives above it, read as a
 * knowledge-tracing process (Corbett & Anderson 1995): an unknown objective is answered right only
 * by a guess, a known one wrong only by a slip, an unknown objective may be learned at each
 * opportunity — but only once its prerequisites are known (a learner cannot master an objective
 * whose prerequisites they do not know).
 *
 * Per objective the tutor state keeps four log-likelihoods of the objective's own graded answers,
 * updated in O(1) per event (`observe`, `instruct`):
 *   kk  the objective was known before its first answer (every answer right but for slips);
 *   kl  it was unknown and has been learned since (at some opportunity);
 *   ku  it was unknown and still is;
 *   kn  it could not be learned at all (a prerequisite is missing): every answer a guess.
 * The walk combines them with the evidence from above (`upMessage`): a dependent answered right is
 * evidence that its prerequisites are known, a dependent that keeps failing while it could have
 * been learned is evidence that one of them is not. That turns "mastery of a dependent implies its
 * prerequisites" and "a stalled dependent sends the walk back to check its prerequisites" into one
 * posterior instead of fixed streak rules.
 *
 * The guess and slip rates are the knowledge-tracing literature's bounds (guess ≤ 0.3, slip ≤ 0.1;
 * Baker, Corbett & Aleven 2008), the learning rate is the learner's own pace (tutor-state.ts).
 */
import { POLICY } from "./config";

/** A log-probability standing for 0 (JSON-safe, unlike -Infinity). */
export const LOG_ZERO = -1e9;

export interface KnowledgeEvidence {
  kk: number;
  kl: number;
  ku: number;
  kn: number;
}

function logAdd(a: number, b: number): number {
  if (a < b) [a, b] = [b, a];
  if (b <= LOG_ZERO / 2) return a;
  return a + Math.log1p(Math.exp(b - a));
}

/** One graded answer on the objective (`learn`: probability that an opportunity teaches an unknown objective). */
export function observe(e: KnowledgeEvidence, correct: boolean, learn: number): void {
  const g = POLICY.guess;
  const s = POLICY.slip;
  const known = Math.log(correct ? 1 - s : s);
  const unknown = Math.log(correct ? g : 1 - g);
  e.kk += known;
  e.kn += unknown;
  // Learning happens after the answer (as in knowledge tracing): the answer is read in the state before it.
  const u = e.ku + unknown;
  const l = e.kl <= LOG_ZERO / 2 ? LOG_ZERO : e.kl + known;
  e.kl = logAdd(l, u + Math.log(learn));
  e.ku = u + Math.log1p(-learn);
}

/** An instructional opportunity (no answer): may teach the objective. */
export function instruct(e: KnowledgeEvidence, learn: number): void {
  e.kl = logAdd(e.kl, e.ku + Math.log(learn));
  e.ku += Math.log1p(-learn);
}

/**
 * log of the message an objective sends to one of its prerequisites: P(its answers and those above
 * it | the prerequisite is known) / P(... | it is not). `above` is the sum of the messages of its own
 * in-scope dependents; `prior` the probability that it is known when its prerequisites are;
 * `others` the probability that its other prerequisites are known (when one of them is missing, its
 * answers say nothing about this one).
 */
export function upMessage(e: KnowledgeEvidence, above: number, prior: number, others = 1): number {
  const capable = logAdd(logAdd(Math.log(prior) + e.kk + above, Math.log1p(-prior) + e.kl + above), Math.log1p(-prior) + e.ku) - e.kn;
  if (others >= 1) return capable;
  // others·R + (1 − others), in logs
  return logAdd(Math.log(Math.max(others, 1e-12)) + capable, Math.log1p(-others));
}

/**
 * Probability that the objective is known now, given its prerequisites are, from its own answers and
 * the messages from above (`above`).
 */
export function knownNow(e: KnowledgeEvidence, above: number, prior: number): number {
  const known = logAdd(Math.log(prior) + e.kk + above, Math.log1p(-prior) + e.kl + above);
  const unknown = Math.log1p(-prior) + e.ku;
  return 1 / (1 + Math.exp(unknown - known));
}
