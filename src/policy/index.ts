/** Public surface of the recommendation policy (pure TypeScript; no Workers APIs, no I/O). */
export type * from "./types";
export { INTENTS_BY_BEHAVIOR } from "./types";
export { POLICY } from "./config";
export { prepareGoal, DEFAULT_MIN_MASTERY } from "./prepare";
export { initialTutorState, applyTutoredEvent, updateTutorState, priorLogits, learnerPace, stuckThreshold } from "./tutor-state";
export { belief, lowerLogit, type Belief } from "./belief";
export { GoalAnalysis } from "./analyze";
export { recommend, recommendWith, type PolicyOptions, type RecommendOptions } from "./recommend";
export { goalStatus, goalStatusWith, estimateWork } from "./status";
