/** Public surface of the analytics math (pure TypeScript; no Workers APIs, no I/O). See docs/analytics.md. */

export type { ActivityEvent, ActivitySummary, DayActivity, Totals } from "./active-time";
export {
  activityByDay,
  addActivity,
  dayLabel,
  emptyActivitySummary,
  eventTimes,
  IDLE_CAP_MS,
  localDay,
  MAX_ACTIVE_TIME_DAYS,
  MAX_EVENT_ACTIVE_MS,
  SESSION_GAP_MS,
  SUMMARY_RETENTION_DAYS,
  summarizeActivity,
  summaryCovers,
  validOffset,
} from "./active-time";
export type { BeliefFilter } from "./beliefs";
export { objectiveBelief } from "./beliefs";
export type { AbilityBelief, ItemPool, ReliabilityRow, ScoreCalibration, ScoreCase } from "./calibration";
export { calibratedTerm, caseLogLikelihood, cellBelow, fitCalibration, IDENTITY_CALIBRATION, poolSlope, reliability } from "./calibration";
export { objectivePools } from "./item-pools";
export type { ExpectedScoreValue, MetricContext, ProficiencyValue } from "./metrics";
export { expectedScoreValue, MIN_GLOBAL_EVIDENCE, proficiencyValue, stateProjection } from "./metrics";
export type { AccountScores, GroupScore, ObjectiveScore, PredictedScoreOptions, ScoreAtConfidence, ScoreContext, ScoreGroupRequest } from "./predicted-score";
export { itemPool, predictedScores, uncalibratedPool } from "./predicted-score";
export type {
  AccountGraphProjection,
  BeliefEntry,
  ObjectiveProjection,
  ProjectionMessage,
  PublishableState,
  PublisherMeta,
  RegistrationEntry,
} from "./projection";
export {
  addAnswered,
  answeredCount,
  applyProjectionMessage,
  COVERAGE_SKETCH,
  coverage,
  emptyProjection,
  MAX_REGISTRATIONS,
  mergeProjections,
  moduleHash,
  PROJECTION_VERSION,
  parseProjectionMessage,
  projectionMessages,
  projectionOfMessage,
  removalMessage,
  unionSketch,
} from "./projection";
export type { Pace, ReadinessForecast, ReadinessInput, WorkRemaining } from "./readiness";
export { MAX_PROJECTION_DAYS, observedPace, PACE_WINDOW_DAYS, readinessForecast } from "./readiness";
export type { ScoreTerm, ShareDistribution } from "./score-distribution";
export { LEVEL_MAX, LEVEL_MIN, shareCell, shareDistribution } from "./score-distribution";
export { SCORE_CALIBRATION, SCORE_HORIZON, UNCALIBRATED_POOL_VARIANCE, WITHIN_OBJECTIVE_POOL_VARIANCE } from "./score-params";
export type { GoalStatus, WatchFlag, WatchGroup, WatchGroupRow, WatchInput } from "./watch";
export { BEHIND_MARGIN, BEHIND_PROBABILITY, GROUP_REASONS, groupWatchFlags, INACTIVE_DAYS, MIN_ELAPSED_SHARE, WATCH_GROUPS, watchFlags } from "./watch";
