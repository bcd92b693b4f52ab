/** Public surface of the analytics math (pure TypeScript; no Workers APIs, no I/O). See docs/analytics.md. */
export type { ActivityEvent, ActivitySummary, Totals } from "./active-time";
export {
  activityByDay,
  addActivity,
  bucketDay,
  dayLabel,
  emptyActivitySummary,
  localDay,
  MAX_ACTIVE_TIME_DAYS,
  oldestKeptBucket,
  summarizeActivity,
  summaryCovers,
} from "./active-time";
export { addAnswered } from "./coverage-sketch";
export { objectivePools } from "./item-pools";
export type { MetricContext } from "./metrics";
export { expectedScoreValue, proficiencyValue, stateProjection } from "./metrics";
export { type AccountScores, predictedScoreSteps } from "./predicted-score";
export type { AccountGraphProjection, ProjectionMessage, PublishableState } from "./projection";
export { applyProjectionMessage, PROJECTION_VERSION } from "./projection";
export { parseProjectionMessage } from "./projection-message";
export { projectionMessages } from "./projection-publish";
export { readinessForecast } from "./readiness";
export type { WatchFlag } from "./watch";
export { GROUP_REASONS, groupWatchFlags, watchFlags } from "./watch";
