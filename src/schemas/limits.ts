/**
 * Fixed limits of the API contract (spec 8.3 and docs/security.md "Limits"), written once: the zod
 * schemas, the body-size middleware and the services read them from here. They are not deployment
 * settings (those are parsed from the environment in src/config.ts).
 *
 * Every request does bounded work: every list, page and fan-out has one of these maxima, and the
 * largest request each endpoint allows answers well inside the Workers CPU limit with at most
 * MAX_ANSWER_BYTES (docs/security.md "Limits" has the table and the measured worst case of each).
 * How a request over a limit is refused:
 * - one value or one list of the request over its bound (`maximum`, `maxItems`, `maxLength` in the
 *   OpenAPI document): 400 naming the limit, like any out-of-range value (docs/api-conventions.md
 *   "HTTP conventions"; the convention of every earlier limit);
 * - the predicted-score limits (decided with a 422), limits over several fields or over stored data
 *   (products, distinct counts, an instance's registrations, an answer's size): 422 naming the limit.
 */

/** Request bodies: 1 MiB (413 beyond), except graph documents. */
export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * Graph documents (POST /v0/graphs, /v0/graphs/validate, PUT /v0/graphs/{id}): a 20,000-module graph
 * is about 3 MiB. 6 MiB keeps GET /v0/graphs/{id} (the document plus a uuid per module and bundle)
 * under MAX_ANSWER_BYTES.
 */
export const GRAPH_DOCUMENT_MAX_BYTES = 6 * 1024 * 1024;
/** No answer is larger (docs/security.md "Limits": at most 10 MB). */
export const MAX_ANSWER_BYTES = 10_000_000;

/** POST /v0/batch entries (spec 8.3). */
export const ACCOUNTS_BATCH_MAX = 50;

/** List endpoints: `limit` default and maximum (docs/api-conventions.md "Lists, tables and metrics bodies"). */
export const LIST_LIMIT_DEFAULT = 100;
export const LIST_LIMIT_MAX = 500;
/**
 * Pages whose items may be large (a goal may hold thousands of ids): a page of scoped goals larger than
 * this is refused (422: ask for a smaller `limit`); a status-and-progress page holds fewer rows (with
 * `next`) so that it stays under it.
 */
export const PAGE_MAX_BYTES = 9_000_000;

/** Live registrations of one learning instance (422 beyond): bounds every fan-out over a class. */
export const INSTANCE_REGISTRATIONS_MAX = 10_000;
/** Live scoped goals of one learning instance (422 beyond). */
export const INSTANCE_GOALS_MAX = 1_000;

/** Events per batch-events request (docs/api-conventions.md "Events"). */
export const MAX_BATCH_EVENTS = 500;

/** Scoped goals: targets over `targets` and every topic (422 beyond; one list over it is 400), topics, scope ids per list. */
export const GOAL_TARGETS_MAX = 2_000;
export const GOAL_TOPICS_MAX = 100;
export const GOAL_SCOPE_IDS_MAX = 20_000;
/** registration_ids per batch goal assignment request (docs/goals.md "The decided rules"). */
export const ASSIGNMENT_BATCH_MAX = 500;

/** Live access tokens one account may hold (docs/architecture.md "Tokens"). */
export const MAX_LIVE_ACCESS_TOKENS_PER_ACCOUNT = 100;

/** Status-and-progress tables: registrations per page (spec 8.3) and goal columns per request (ours). */
export const STATUS_PAGE_MAX = 100;
export const STATUS_REQUEST_GOALS_MAX = 40;

/** Metrics rows (docs/security.md "Limits"): registrations per page, goal and objective columns per request. */
export const METRICS_PAGE_MAX = 30;
export const METRICS_GOALS_MAX = 40;
export const METRICS_OBJECTIVES_MAX = 50;
/** Learners to watch: goals per request, and learners per page (fewer for large goals: ANALYSIS_PAGE_WORK). */
export const WATCH_GOALS_MAX = 50;
export const WATCH_PAGE_MAX = 500;
/**
 * Pages that judge every learner on every requested goal (the goal's status: its scope's beliefs,
 * open targets, work remaining), learners to watch and readiness-forecast rows, hold fewer learners
 * when the goals are large (`next` follows): each learner costs ANALYSIS_LEARNER_WORK plus, per
 * requested goal, ANALYSIS_GOAL_WORK and its in-scope objectives, and a page at most
 * ANALYSIS_PAGE_WORK (7.4 s of CPU at most, measured in a local workerd for the largest goals: a
 * quarter of the Workers CPU limit; docs/security.md "Limits"). 40 goals of 2,000 objectives: 4
 * learners a page.
 */
export const ANALYSIS_LEARNER_WORK = 200;
export const ANALYSIS_GOAL_WORK = 50;
export const ANALYSIS_PAGE_WORK = 400_000;

/**
 * Predicted score (spec 4.7; docs/security.md "Limits", every one 422 beyond): accounts, groups, distinct
 * objectives, confidence levels, accounts × distinct objectives, and accounts × (groups + distinct
 * objectives + 1) × levels (the score lists of the answer). Ours: entries of one group (an objective
 * listed twice counts twice; at most the distinct objectives), and the answer's size.
 */
export const PREDICTED_SCORE_ACCOUNTS_MAX = 500;
export const PREDICTED_SCORE_GROUPS_MAX = 20;
export const PREDICTED_SCORE_OBJECTIVES_MAX = 200;
export const PREDICTED_SCORE_GROUP_ENTRIES_MAX = 200;
export const PREDICTED_SCORE_LEVELS_MAX = 11;
export const PREDICTED_SCORE_ACCOUNT_OBJECTIVES_MAX = 10_000;
export const PREDICTED_SCORE_SCORES_MAX = 50_000;
