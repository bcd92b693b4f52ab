/**
 * Fixed limits of the API contract (spec 8.3 and decisions.md), written once: the zod schemas,
 * the body-size middleware and the services read them from here. They are not deployment settings
 * (those are parsed from the environment in src/config.ts).
 */

/** Request bodies: 1 MiB (413 beyond), except graph documents. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Graph documents (POST /v0/graphs, /v0/graphs/validate, PUT /v0/graphs/{id}): a 20,000-module graph is several MiB. */
export const GRAPH_DOCUMENT_MAX_BYTES = 16 * 1024 * 1024;

/** POST /v0/batch entries (spec 8.3). */
export const ACCOUNTS_BATCH_MAX = 50;

/** List endpoints: `limit` default and maximum (decisions.md "Clarifications"). */
export const LIST_LIMIT_DEFAULT = 100;
export const LIST_LIMIT_MAX = 500;

/** Events per batch-events request (decisions.md "Events"). */
export const MAX_BATCH_EVENTS = 500;

/** registration_ids per batch goal assignment request (decisions.md "Scoped goals"). */
export const ASSIGNMENT_BATCH_MAX = 500;

/** Live access tokens one account may hold (docs/architecture.md "Tokens"). */
export const MAX_LIVE_ACCESS_TOKENS_PER_ACCOUNT = 100;

/** Status-and-progress tables: registrations per page (spec 8.3) and goal columns per request (ours). */
export const STATUS_PAGE_MAX = 100;
export const STATUS_REQUEST_GOALS_MAX = 40;

/** Predicted score (spec 4.7): accounts per request, and objectives over all groups. */
export const PREDICTED_SCORE_ACCOUNTS_MAX = 500;
export const PREDICTED_SCORE_OBJECTIVES_MAX = 2000;
export const PREDICTED_SCORE_GROUPS_MAX = 100;

/** Metrics rows (decisions.md "Metrics the spec only names"): registrations per page, goal and objective columns per request. */
export const METRICS_PAGE_MAX = 30;
export const METRICS_GOALS_MAX = 40;
export const METRICS_OBJECTIVES_MAX = 50;
/** Learners to watch: goals per request. */
export const WATCH_GOALS_MAX = 50;
