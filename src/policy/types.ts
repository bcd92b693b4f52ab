/**
 * Types of the recommendation policy and goal status (pure; see docs/recommendation.md).
 */
export type AdaptiveBehavior = "practice" | "introduce" | "review";
export type CompletionBehavior = "all" | "average";

export type Intent =
  | "introduction"
  | "diagnostic"
  | "instruction_intervention"
  | "mastery_demonstration"
  | "continued_practice"
  | "focused_practice"
  | "interleaving";

/** Intents a goal may carry, per adaptive_behavior (decisions.md, Clarifications). */
export const INTENTS_BY_BEHAVIOR: Readonly<Record<AdaptiveBehavior, readonly Intent[]>> = {
  practice: ["diagnostic", "mastery_demonstration", "focused_practice", "instruction_intervention", "continued_practice"],
  introduce: ["introduction", "diagnostic", "mastery_demonstration", "instruction_intervention", "continued_practice"],
  review: ["interleaving", "instruction_intervention", "continued_practice"],
};

/**
 * The parts of a stored goal body (src/services/goals.ts GoalBody, defaults filled) the policy reads.
 * Structural, so the policy does not depend on the service layer.
 */
export interface GoalBodyLike {
  adaptive_behavior: AdaptiveBehavior;
  targets?: { include: string[]; completion_behavior?: CompletionBehavior };
  topics?: { id: string; targets: { include: string[]; completion_behavior?: CompletionBehavior } }[];
  completion_criteria?: { min_predicted_mastery?: number; min_work_per_target?: number; max_work_on_goal?: number };
}

/** The goal's resolved scope, as labels (the goal row's columns: src/services/goals.ts GoalScope). */
export interface GoalScopeLabels {
  /** target objectives (`lref-`): the targets themselves, or the objectives of the target modules */
  targetObjectives: readonly string[];
  /** in-scope objectives (`lref-`) */
  scopeObjectives: readonly string[];
  /** recommendable atoms (`mref-`) */
  scopeModules: readonly string[];
}

export interface PreparedTarget {
  /** `lref-` or `mref-` id as the goal names it */
  id: string;
  kind: "objective" | "module";
  /** local indices of the target's objectives (one for an objective target) */
  objectives: number[];
  /** index into PreparedGoal.topics, -1 without topics */
  topic: number;
}

export interface PreparedTopic {
  id: string;
  /** indices into PreparedGoal.targets */
  targets: number[];
  completion: CompletionBehavior;
}

/**
 * A goal's scope compiled once per (goal version, graph version): dense local indices (0..n-1, in
 * the graph's topological order) so a request touches only arrays. O(scope objectives + their atoms).
 */
export interface PreparedGoal {
  behavior: AdaptiveBehavior;
  minMastery: number;
  minWorkPerTarget: number;
  maxWork: number | undefined;
  /** completion rule over the targets (a goal with topics: every topic by its own rule) */
  completion: CompletionBehavior;
  /** objective labels, local index -> `lref-` */
  labels: string[];
  local: Map<string, number>;
  /** in-scope prerequisites / dependents (local indices) */
  prereqs: number[][];
  dependents: number[][];
  /** prerequisite distance from the nearest target (0 = target), -1 when not below any target */
  distance: number[];
  /** recommendable assessing atoms (type assessment or both) per objective, labels */
  assess: string[][];
  /** recommendable instructional-only atoms per objective, labels */
  instruct: string[][];
  targets: PreparedTarget[];
  topics: PreparedTopic[];
  /** distinct target objectives (local), in goal order */
  targetObjectives: number[];
  /** local objectives that are targets */
  isTarget: boolean[];
}

/** Per-objective record of the tutor state (fixed size). */
export interface ObjectiveTrack {
  /** graded opportunities, and how many were answered correctly */
  n: number;
  w: number;
  /** ungraded (instructional) opportunities, and the graded count `n` when the last one happened (-1 never) */
  u: number;
  uAt: number;
  /** work share: each event adds 1/(number of objectives of its item) to each of them */
  f: number;
  /** last graded outcomes, bit 0 = most recent (1 = correct); at most 16 kept */
  o: number;
  /** the best lower credible bound (readyConfidence) of the predicted-mastery logit so far, and the opportunity count when it was reached */
  hi: number;
  hiAt: number;
  /** tutor sequence number of the last re-check point (every stuckOpportunities answers without a new high) */
  rvSeq: number;
  /**
   * 1 while the objective is in a stuck episode: entered after POLICY.stuckOpportunities answers
   * without a new high, left after three correct answers in a row
   */
  sk: number;
  /** 1 once the objective was learned after wrong answers (counted in the learner's pace) */
  ls: number;
  /** tutor sequence number of the last event on the objective */
  last: number;
  /** knowledge evidence (knowledge.ts): log-likelihoods of the objective's answers if known before them, learned since, still unknown, not learnable */
  kk: number;
  kl: number;
  ku: number;
  kn: number;
}

/**
 * Tutor state of one registration: a deterministic function of its event sequence (replayable),
 * bounded: a fixed-size record per objective touched plus the last RECENT_ITEMS items.
 */
export interface TutorState {
  version: 2;
  /** events applied */
  seq: number;
  /** most recent items (module labels), most recent first */
  recent: string[];
  /** objectives of the most recent event */
  lastObjectives: string[];
  /** outcome of the most recent event: 1 correct, 0 wrong, -1 ungraded */
  lastOutcome: number;
  /** learner-level learning speed: objectives that went from a wrong answer to mastery, and the wrong answers they took */
  learned: number;
  learnedFails: number;
  obj: Record<string, ObjectiveTrack>;
}

export interface Justification {
  current_learning_objective_id: string;
  target_learning_objective_id: string;
  target_topic_id?: string;
  remedial: boolean;
  intent: Intent;
}

export interface Recommendation {
  module_ids: string[];
  status: "in progress" | "ready";
  stuck: boolean;
  /** justification of module_ids[0] (absent when module_ids is empty) */
  justification?: Justification;
}

export type GoalStatusValue = "complete" | "complete_max_work" | "in_progress" | "struggling" | "no_work";
export type TargetStatusValue = "complete" | "in_progress" | "struggling" | "no_work";

export interface TargetStatus {
  target_id?: string;
  module_id?: string;
  status: TargetStatusValue;
  progress: number;
}

export interface TopicWorkRemaining {
  topic_id: string;
  min_work_remaining: -1;
  average_work_remaining: number;
}

export interface GoalStatus {
  status: GoalStatusValue;
  progress: number;
  work_remaining: number;
  targets: TargetStatus[];
  topic_work_remaining?: TopicWorkRemaining[];
}
