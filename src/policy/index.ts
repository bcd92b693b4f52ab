/** Public surface of the recommendation policy (pure TypeScript; no Workers APIs, no I/O). */
export { GoalAnalysis } from "./analyze";
export { type Belief, belief, lowerLogit } from "./belief";
export { POLICY } from "./config";
export { DEFAULT_MIN_MASTERY, prepareGoal } from "./prepare";
export { type PolicyOptions, type RecommendOptions, recommend, recommendWith } from "./recommend";
export { estimateWork, goalStatus, goalStatusWith } from "./status";
export { applyTutoredEvent, initialTutorState, learnerPace, priorLogits, stuckThreshold, updateTutorState } from "./tutor-state";
export type * from "./types";
export { INTENTS_BY_BEHAVIOR } from "./types";
