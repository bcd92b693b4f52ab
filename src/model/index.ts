/** Public surface of the Pathwise learner model (pure TypeScript; no Workers APIs, no I/O). */

export type { CalibrateOptions, L2Config, TrainingSequence } from "./calibrate";
export { calibrate } from "./calibrate";
export { checkParams } from "./check-params";
export type { ItemRef } from "./features";
export { FEATURE_NAMES, itemDifficulty } from "./features";
export type { PrereqGraph } from "./graph-propagation";
export { buildGraph } from "./graph-propagation";
export { refineItem } from "./item-refine";
export type { ItemCounters, LearnerState, ObjectiveState } from "./learner-state";
export { initialLearnerState } from "./learner-state";
export { accuracy, auc, logLoss, rmse } from "./metrics";
export type { FilterParams, GraphParams, ItemEntry, ModelParams, ObjectiveEntry } from "./params";
export { DEFAULT_FILTER, DEFAULT_GRAPH, ITEM_MEMORY } from "./params";
export type { Proficiency } from "./predict";
export { predictCorrect, predictLogit, proficiency } from "./predict";
export { replay } from "./replay";
export type { GradedEvent, LearnerEvent, UngradedEvent } from "./update";
export { applyEvent, applyGraded, applyUngraded } from "./update";
