/**
 * Constants of the policy, status and stuck rules, in one place (docs/recommendation.md explains
 * each and how it was chosen with the learner simulator, scripts/simulate/).
 */
export interface PolicyConfig {
  readyConfidence: number;
  metStreak: number;
  establishedConfidence: number;
  prerequisiteMargin: number;
  streakAfterGap: number;
  weakMastery: number;
  stuckOpportunities: number;
  stuckPaceFactor: number;
  trendMargin: number;
  reverifyAfter: number;
  instructionSpacing: number;
  recentItems: number;
  learnOpportunitiesPrior: number;
  learnOpportunitiesPriorWeight: number;
  maxModules: number;
  maxWorkRemaining: number;
  maxCandidates: number;
}

export const POLICY: PolicyConfig = {
  /**
   * Ready / complete: a target is met when the model's posterior probability that the learner's
   * P(correct) on an unseen average item of the objective is at least min_predicted_mastery is at
   * least this (i.e. the lower credible bound at this level clears the threshold).
   */
  readyConfidence: 0.75,
  /** The learner's own last answers on an objective that must be correct for it to be met (ASSISTments' three in a row). */
  metStreak: 3,
  /**
   * A prerequisite counts as established (no remediation needed) on weaker evidence: direct
   * evidence (one graded answer at least) and posterior probability at least this.
   */
  establishedConfidence: 0.5,
  /** The prerequisite bar is this far (logit) below the goal's threshold: 0.8 → 0.6. */
  prerequisiteMargin: 1.0,
  /** Correct answers in a row that establish an objective answered wrong before (two on a clean record). */
  streakAfterGap: 2,
  /** A prerequisite is weak (remediate it even before its dependent fails) below this predicted mastery, with evidence. */
  weakMastery: 0.5,
  /**
   * Stuck (wheel-spinning, Beck & Gong 2013): this many graded opportunities on the focused
   * objective since the belief last reached a new high, without meeting the mastery criterion.
   */
  stuckOpportunities: 10,
  /** A learner who needs more attempts to learn gets a proportionally later stuck flag: threshold = max(stuckOpportunities, this × pace). */
  stuckPaceFactor: 2.5,
  /** Margin (logit) by which the belief must exceed its previous best to count as an upward trend. */
  trendMargin: 0.05,
  /** After this many opportunities without a new high on an objective, prerequisites that are only established (not met) are checked again. */
  reverifyAfter: 3,
  /** An instructional atom is offered again only after this many graded opportunities on the objective since the last one. */
  instructionSpacing: 1,
  /** Items remembered as recently answered (never recommended first again while remembered). */
  recentItems: 3,
  /** Default number of graded opportunities a learner needs to learn an unknown objective (before the learner's own evidence). */
  learnOpportunitiesPrior: 4,
  /** Weight (in objectives) of that prior against the learner's own observed learning times. */
  learnOpportunitiesPriorWeight: 2,
  /** Maximum module_ids returned. */
  maxModules: 10,
  /** Cap of work_remaining (spec 2.5). */
  maxWorkRemaining: 30,
  /** Candidate atoms scored per objective (bounds the cost on objectives with very many atoms). */
  maxCandidates: 24,
};
