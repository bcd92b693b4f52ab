import { z } from "@hono/zod-openapi";
import { GOAL_ID_EXAMPLE as GOAL_EXAMPLE, goalIdList, isoDate, isoDateTime, uuid } from "./common";
import { METRICS_GOALS_MAX, METRICS_OBJECTIVES_MAX, METRICS_PAGE_MAX, WATCH_GOALS_MAX, WATCH_PAGE_MAX } from "./limits";
import { ObjectiveId } from "./text";

/** The four metrics spec 4.8 names (docs/analytics.md "Metrics rows"); each has a learning-instance table and a registration row. */
export const METRICS = ["proficiency", "expected-score", "readiness-forecast", "active-time"] as const;
export type MetricName = (typeof METRICS)[number];

const GoalIds = goalIdList(METRICS_GOALS_MAX);
const ObjectiveIds = z
  .array(ObjectiveId)
  .min(1)
  .max(METRICS_OBJECTIVES_MAX, { message: `at most ${METRICS_OBJECTIVES_MAX} objective ids per request` });
const DateOrDateTime = z
  .union([isoDate, isoDateTime], { message: "must be an ISO 8601 date (2027-01-04) or date-time, in 1970..2100" })
  .openapi({ description: "ISO 8601 date or date-time, in the years 1970 to 2100", example: "2027-01-04" });

const Paging = {
  registration_offset: z.number().int().min(0).default(0),
  registrations_per_page: z
    .number()
    .int()
    .min(1)
    .max(METRICS_PAGE_MAX)
    .default(METRICS_PAGE_MAX)
    .openapi({
      description: `Default and maximum ${METRICS_PAGE_MAX}; a page may hold fewer rows (readiness forecast: for large goals), \`next\` gives the following page.`,
    }),
};

/** Request fields per metric (docs/api-conventions.md "Lists, tables and metrics bodies": proficiency takes goal_ids and/or learning_objective_ids). */
const METRIC_FIELDS = {
  proficiency: { goal_ids: GoalIds.optional(), learning_objective_ids: ObjectiveIds.optional() },
  "expected-score": { goal_ids: GoalIds },
  "readiness-forecast": { goal_ids: GoalIds },
  "active-time": {
    start_date: DateOrDateTime,
    end_date: DateOrDateTime.openapi({ description: "Inclusive; at most 7 days after start_date" }),
    utc_offset_minutes: z
      .number()
      .int()
      .min(-720)
      .max(840)
      .multipleOf(15)
      .optional()
      // multipleOf is restated for the document: the generator leaves zod's out.
      .openapi({ multipleOf: 15, description: "The time zone whose calendar days are the columns, as minutes east of UTC (default 0: UTC days)." }),
    goal_ids: GoalIds.optional().openapi({ description: "Rows: learners with one of these goals assigned (default: every learner)." }),
  },
} as const;

const needsColumns = <T extends z.ZodType<{ goal_ids?: unknown; learning_objective_ids?: unknown }>>(body: T) =>
  body.refine((b) => b.goal_ids !== undefined || b.learning_objective_ids !== undefined, {
    message: "send goal_ids and/or learning_objective_ids",
    path: ["goal_ids"],
  });

/** Request examples for the API reference (/docs). */
const page = { registration_offset: 0, registrations_per_page: METRICS_PAGE_MAX };
const EXAMPLES = {
  proficiency: { goal_ids: [GOAL_EXAMPLE], learning_objective_ids: ["lref-one-step-eq", "lref-two-step-eq"] },
  "expected-score": { goal_ids: [GOAL_EXAMPLE] },
  "readiness-forecast": { goal_ids: [GOAL_EXAMPLE] },
  "active-time": { start_date: "2027-01-04", end_date: "2027-01-10", utc_offset_minutes: -300, goal_ids: [GOAL_EXAMPLE] },
};

/** Request bodies per metric: the registration row's, and the instance table's with paging (at most 30 rows a page). */
export const METRIC_BODIES = {
  proficiency: {
    registration: needsColumns(z.object(METRIC_FIELDS.proficiency)).openapi("ProficiencyRowsRequest", { example: EXAMPLES.proficiency }),
    instance: needsColumns(z.object({ ...METRIC_FIELDS.proficiency, ...Paging })).openapi("InstanceProficiencyRowsRequest", {
      example: { ...EXAMPLES.proficiency, ...page },
    }),
  },
  "expected-score": {
    registration: z.object(METRIC_FIELDS["expected-score"]).openapi("ExpectedScoreRowsRequest", { example: EXAMPLES["expected-score"] }),
    instance: z.object({ ...METRIC_FIELDS["expected-score"], ...Paging }).openapi("InstanceExpectedScoreRowsRequest", {
      example: { ...EXAMPLES["expected-score"], ...page },
    }),
  },
  "readiness-forecast": {
    registration: z.object(METRIC_FIELDS["readiness-forecast"]).openapi("ReadinessForecastRowsRequest", { example: EXAMPLES["readiness-forecast"] }),
    instance: z.object({ ...METRIC_FIELDS["readiness-forecast"], ...Paging }).openapi("InstanceReadinessForecastRowsRequest", {
      example: { ...EXAMPLES["readiness-forecast"], ...page },
    }),
  },
  "active-time": {
    registration: z.object(METRIC_FIELDS["active-time"]).openapi("ActiveTimeRowsRequest", { example: EXAMPLES["active-time"] }),
    instance: z.object({ ...METRIC_FIELDS["active-time"], ...Paging }).openapi("InstanceActiveTimeRowsRequest", {
      example: { ...EXAMPLES["active-time"], ...page },
    }),
  },
} as const;

const ProficiencyValueSchema = z
  .object({
    proficiency: z.number().min(0).max(1).openapi({ description: "Expected share of right answers on the objective's items" }),
    lower: z.number().min(0).max(1),
    upper: z.number().min(0).max(1).openapi({ description: "95% credible interval" }),
    evidence: z.number().int().openapi({ description: "Graded answers the value rests on" }),
  })
  .openapi("ProficiencyValue");
const ExpectedScoreValueSchema = z
  .object({
    expected_score: z.number().min(0).max(1),
    lower: z.number().min(0).max(1),
    upper: z.number().min(0).max(1),
    status: z.enum(["estimated", "insufficient_data"]),
  })
  .openapi("ExpectedScoreValue");
const ReadinessValueSchema = z
  .object({
    probability_ready_by_end: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .openapi({ description: "null when the goal has no deadline or the work remaining is unknown" }),
    projected_completion: z.string().nullable(),
  })
  .openapi("ReadinessForecastValue");
const ActiveTimeValueSchema = z.object({ active_time_ms: z.number().int(), time_spent_ms: z.number().int() }).openapi("ActiveTimeValue");

export const METRIC_VALUES = {
  proficiency: ProficiencyValueSchema,
  "expected-score": ExpectedScoreValueSchema,
  "readiness-forecast": ReadinessValueSchema,
  "active-time": ActiveTimeValueSchema,
} as const;

export const metricTable = <V extends z.ZodTypeAny>(value: V, paged: boolean) =>
  z.object({
    query: z.record(z.string(), z.unknown()).openapi({ description: "The request body echoed (defaults filled)." }),
    column_headers: z.array(z.string()),
    data: z.array(z.object({ registration_id: z.string().uuid(), values: z.array(value) })),
    ...(paged ? { next: z.object({ registration_offset: z.number().int(), registrations_per_page: z.number().int() }).optional() } : {}),
  });

export const WatchBody = z
  .object({
    goal_ids: z.array(uuid).min(1).max(WATCH_GOALS_MAX),
    registration_offset: z.number().int().min(0).default(0),
    registrations_per_page: z
      .number()
      .int()
      .min(1)
      .max(WATCH_PAGE_MAX)
      .default(WATCH_PAGE_MAX)
      .openapi({
        description: `Learners looked at per page: default and maximum ${WATCH_PAGE_MAX}; fewer when the goals are large (each learner is judged on every requested goal), \`next\` gives the following page.`,
      }),
  })
  .openapi("LearnersToWatchRequest", { example: { goal_ids: [GOAL_EXAMPLE], registration_offset: 0, registrations_per_page: WATCH_PAGE_MAX } });
const WATCH_GROUP_NAMES = ["stuck", "struggling", "inactive", "not_started", "behind_schedule"] as const;
export const WatchResponse = z
  .object({
    groups: z.array(
      z.object({
        group: z.enum(WATCH_GROUP_NAMES),
        goal_id: z.string().uuid(),
        registration_ids: z.array(z.string().uuid()),
        reason: z.string().openapi({ description: "Why these learners are in the group, for a teacher" }),
      }),
    ),
    next: z
      .object({ registration_offset: z.number().int(), registrations_per_page: z.number().int() })
      .optional()
      .openapi({ description: "The next page of learners, when there is one: the groups of every page together are the class's." }),
  })
  .openapi("LearnersToWatch");
