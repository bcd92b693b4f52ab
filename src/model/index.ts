/** Public surface of the Pathwise learner model (pure TypeScript; no Workers APIs, no I/O). */

export type { CalibrateOptions } from "./calibrate";
export { calibrate } from "./calibrate";
export { checkParams } from "./check-params";
export { FEATURE_NAMES } from "./features";
export type { PrereqGraph } from "./graph-propagation";
export { buildGraph } from "./graph-propagation";
export { refineItem } from "./item-refine";
export type { LearnerState } from "./learner-state";
export { initialLearnerState } from "./learner-state";
export { accuracy, auc, logLoss, rmse } from "./metrics";
export type { ItemEntry, ModelParams } from "./params";
export { DEFAULT_FILTER, DEFAULT_GRAPH, ITEM_MEMORY } from "./params";
export { predictCorrect, proficiency } from "./predict";
export { replay } from "./replay";
export type { LearnerEvent } from "./update";
export { applyEvent, applyGraded, applyUngraded } from "./update";
