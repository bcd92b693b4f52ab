/** Public surface of the recommendation policy (pure TypeScript; no Workers APIs, no I/O). */
export { GoalAnalysis } from "./analysis";
export { POLICY } from "./config";
export { prepareGoal } from "./prepare";
export { recommend, recommendWith } from "./recommend";
export { goalStatus, goalStatusWith } from "./status";
export { applyTutoredEvent, initialTutorState } from "./tutor-state";
export type * from "./types";
export { INTENTS_BY_BEHAVIOR } from "./types";
