/**
 * Constants of the policy, status and stuck rules, in one place (docs/recommendation.md explains
 * each and how it was chosen with the learner simulator, scripts/simulate/).
 */
export interface PolicyConfig {
  readyConfidence: number;
  metStreak: number;
  weakMastery: number;
  stuckOpportunities: number;
  stuckPaceFactor: number;
  trendMargin: number;
  instructionSpacing: number;
  recentItems: number;
  learnOpportunitiesPrior: number;
  learnOpportunitiesPriorWeight: number;
  maxModules: number;
  maxWorkRemaining: number;
  maxCandidates: number;
  guess: number;
  slip: number;
  knownP: number;
}

export const POLICY: PolicyConfig = {
  /**
   * Ready / complete: a target is met when the model's posterior probability that its predicted
   * mastery (P(correct) on an unseen average item of the objective) is at least min_predicted_mastery
   * is at least this, i.e. the lower credible bound at this level clears the threshold. Chosen with
   * the simulator: 0.6 gave 3% false-ready, 0.7 0.4%, 0.75 0% (and 0–2% on every variant).
   */
  readyConfidence: 0.75,
  /** The learner's own last answers on an objective that must be correct for it to be met (ASSISTments' three in a row). */
  metStreak: 3,
  /** Below this predicted mastery an answered objective gets focused_practice (practice goals). */
  weakMastery: 0.5,
  /**
   * Stuck (wheel-spinning, Beck & Gong 2013): a stuck episode starts after this many graded answers
   * on an objective without a new high of the belief's lower bound (for a learner of typical pace).
   */
  stuckOpportunities: 10,
  /** A learner who needs more attempts to learn gets a proportionally later stuck flag: threshold = max(stuckOpportunities, this × pace). */
  stuckPaceFactor: 2.5,
  /** Margin (logit) by which the belief must exceed its previous best to count as an upward trend. */
  trendMargin: 0.05,
  /** An instructional atom is offered again only after this many graded answers on the objective since the last one (1: alternate). */
  instructionSpacing: 1,
  /** Items remembered as recently answered (never recommended first again while remembered). */
  recentItems: 3,
  /** Prior of the learner's pace: wrong answers before an unknown objective is learned (before the learner's own record). */
  learnOpportunitiesPrior: 4,
  /** Weight (in objectives) of that prior against the learner's own record. */
  learnOpportunitiesPriorWeight: 2,
  /** Maximum module_ids returned. */
  maxModules: 10,
  /** Cap of work_remaining (spec 2.5). */
  maxWorkRemaining: 30,
  /** Candidate atoms scored per objective (bounds the cost on objectives with very many atoms). */
  maxCandidates: 24,
  /** Knowledge evidence (knowledge.ts): probability of a right answer on an objective the learner does not know (a guess). */
  guess: 0.25,
  /** ... and of a wrong answer on one the learner knows (a slip). */
  slip: 0.1,
  /** An objective counts as known (the walk may build on it) at this probability. */
  knownP: 0.85,
};
