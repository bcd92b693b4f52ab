/**
 * Types of the recommendation policy and goal status (pure; see docs/recommendation.md).
 */
import type { ObjectiveEvidence } from "../tracing/evidence";
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

/** Intents a goal may carry, per adaptive_behavior (docs/api-conventions.md "Recommendation intents by goal behaviour"). */
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
  /** in-scope prerequisites (local indices), without a prerequisite another of them needs (src/tracing/implied-prerequisites.ts) */
  prereqs: number[][];
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
  /** per target: the in-scope objectives it needs (its own and their in-scope ancestors), topological order */
  neededBy: number[][];
  /** target objectives no other target needs: knowing them implies knowing every target */
  maximalTargets: number[];
}

/**
 * Tutor state of one registration: a deterministic function of its event sequence (replayable) and
 * of nothing else (no rate, no parameter), bounded: per objective touched its evidence (bounded by
 * KEEP steps, src/tracing/evidence.ts) plus the last RECENT items.
 */
export interface TutorState {
  version: 3;
  /** events applied */
  seq: number;
  /** most recent items (module labels), most recent first */
  recent: string[];
  /** objectives of the most recent event */
  lastObjectives: string[];
  obj: Record<string, ObjectiveEvidence>;
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
