import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { AccountGraphProjection } from "../analytics";
import { ADAPTIVE_BEHAVIORS, REGISTRATION_TYPES, TARGET_KINDS } from "../domain/vocabulary";
import type { GraphCounts } from "../graphs/graph-document";
import type { GoalBody } from "../schemas/goals";

// Mirrors migrations/*.sql (the migrations are the source of truth for the database).

export const partners = sqliteTable("partners", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  clientId: text("client_id").notNull().unique(),
  clientSecretHash: text("client_secret_hash").notNull(),
  adminAccountId: text("admin_account_id").notNull(),
  createdAt: integer("created_at").notNull(),
  /** partner setting (migration 0009): events older than this many days leave the logs; null: kept */
  eventRetentionDays: integer("event_retention_days"),
});

export const accounts = sqliteTable(
  "accounts",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id").notNull(),
    externalUserId: text("external_user_id").notNull(),
    entitlements: text("entitlements", { mode: "json" }).$type<string[]>(),
    disabledAt: integer("disabled_at"),
    createdAt: integer("created_at").notNull(),
    /** set when an erasure was requested (migration 0009): the row is a tombstone */
    erasedAt: integer("erased_at"),
  },
  (t) => [uniqueIndex("accounts_partner_external").on(t.partnerId, t.externalUserId)],
);

export const learningInstances = sqliteTable(
  "learning_instances",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id").notNull(),
    graphId: text("graph_id").notNull(),
    /** the resolved graph (migration 0002); graph_id keeps what the caller sent */
    graphUuid: text("graph_uuid"),
    name: text("name").notNull(),
    startDate: text("start_date"),
    endDate: text("end_date"),
    createdAt: integer("created_at").notNull(),
    deletedAt: integer("deleted_at"),
    /** set when an erasure was requested (migration 0009) */
    erasedAt: integer("erased_at"),
  },
  (t) => [index("learning_instances_partner").on(t.partnerId, t.createdAt)],
);

export const registrations = sqliteTable(
  "registrations",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id").notNull(),
    accountId: text("account_id").notNull(),
    learningInstanceId: text("learning_instance_id").notNull(),
    type: text("type", { enum: REGISTRATION_TYPES }).notNull(),
    createdAt: integer("created_at").notNull(),
    deletedAt: integer("deleted_at"),
  },
  (t) => [
    uniqueIndex("registrations_live_member").on(t.learningInstanceId, t.accountId).where(sql`deleted_at IS NULL`),
    index("registrations_account").on(t.accountId),
  ],
);

export const accessTokens = sqliteTable("access_tokens", {
  jti: text("jti").primaryKey(),
  accountId: text("account_id").notNull(),
  expiresAt: integer("expires_at").notNull(),
});

export const refreshTokens = sqliteTable(
  "refresh_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    partnerId: text("partner_id").notNull(),
    accountId: text("account_id").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
    /** the access token issued with this refresh token (migration 0006): the refresh grant retires it */
    accessJti: text("access_jti"),
  },
  (t) => [index("refresh_tokens_account").on(t.accountId)],
);

export type AccountRow = typeof accounts.$inferSelect;
export type LearningInstanceRow = typeof learningInstances.$inferSelect;
export type RegistrationRow = typeof registrations.$inferSelect;
export type PartnerRow = typeof partners.$inferSelect;

// --- Knowledge graphs (migrations/0002_graphs.sql) ---

export const graphs = sqliteTable(
  "graphs",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id").notNull(),
    label: text("label").notNull(),
    name: text("name").notNull(),
    version: integer("version").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [uniqueIndex("graphs_partner_label").on(t.partnerId, t.label), index("graphs_partner_created").on(t.partnerId, t.createdAt)],
);

export const graphVersions = sqliteTable(
  "graph_versions",
  {
    graphId: text("graph_id").notNull(),
    version: integer("version").notNull(),
    name: text("name").notNull(),
    counts: text("counts", { mode: "json" }).$type<GraphCounts>().notNull(),
    documentParts: integer("document_parts").notNull(),
    runtimeParts: integer("runtime_parts").notNull(),
    runtimeFormat: integer("runtime_format").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.graphId, t.version] })],
);

export const graphBlobs = sqliteTable(
  "graph_blobs",
  {
    graphId: text("graph_id").notNull(),
    version: integer("version").notNull(),
    kind: text("kind", { enum: ["document", "runtime"] }).notNull(),
    part: integer("part").notNull(),
    data: text("data").notNull(),
  },
  (t) => [primaryKey({ columns: [t.graphId, t.version, t.kind, t.part] })],
);

export type GraphRow = typeof graphs.$inferSelect;
export type GraphVersionRow = typeof graphVersions.$inferSelect;

// --- Scoped goals and their assignment (migrations/0003_goals.sql) ---

export const goals = sqliteTable(
  "goals",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id").notNull(),
    learningInstanceId: text("learning_instance_id").notNull(),
    targetKind: text("target_kind", { enum: TARGET_KINDS }).notNull(),
    adaptiveBehavior: text("adaptive_behavior", { enum: ADAPTIVE_BEHAVIORS }).notNull(),
    /** the goal as the API echoes it (defaults filled), without id and timestamps */
    body: text("body", { mode: "json" }).$type<GoalBody>().notNull(),
    graphUuid: text("graph_uuid").notNull(),
    graphVersion: integer("graph_version").notNull(),
    /** labels: target objectives (for module goals: the objectives of the target modules) */
    targetObjectives: text("target_objectives", { mode: "json" }).$type<string[]>().notNull(),
    /** labels: in-scope objectives (targets plus remediation, include, exclude) */
    scopeObjectives: text("scope_objectives", { mode: "json" }).$type<string[]>().notNull(),
    /** labels: recommendable atoms */
    scopeModules: text("scope_modules", { mode: "json" }).$type<string[]>().notNull(),
    /** timing.end as ISO UTC, if given */
    endAt: text("end_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    deletedAt: integer("deleted_at"),
  },
  (t) => [index("goals_instance").on(t.learningInstanceId, t.createdAt)],
);

export const goalAssignments = sqliteTable(
  "goal_assignments",
  {
    goalId: text("goal_id").notNull(),
    registrationId: text("registration_id").notNull(),
    assignedAt: integer("assigned_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.goalId, t.registrationId] }), index("goal_assignments_registration").on(t.registrationId)],
);

export type GoalRow = typeof goals.$inferSelect;
export type GoalAssignmentRow = typeof goalAssignments.$inferSelect;

export const itemParams = sqliteTable(
  "item_params",
  {
    graphId: text("graph_id").notNull(),
    module: text("module").notNull(),
    easiness: real("easiness").notNull(),
    difficulty: real("difficulty").notNull(),
    observations: integer("observations").notNull(),
    shift: real("shift").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.graphId, t.module] })],
);

export const appliedModelUpdates = sqliteTable("applied_model_updates", {
  messageId: text("message_id").primaryKey(),
  appliedAt: integer("applied_at").notNull(),
});

// --- Population statistics of the knowledge-tracing rates (migrations/0008_population_statistics.sql) ---

export const populationItems = sqliteTable(
  "population_items",
  {
    graphId: text("graph_id").notNull(),
    item: text("item").notNull(),
    objective: text("objective").notNull(),
    known: real("known").notNull(),
    knownRight: real("known_right").notNull(),
    unknown: real("unknown").notNull(),
    unknownRight: real("unknown_right").notNull(),
    partial: real("partial").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.graphId, t.item] })],
);

export const populationObjectives = sqliteTable(
  "population_objectives",
  {
    graphId: text("graph_id").notNull(),
    objective: text("objective").notNull(),
    episodes: real("episodes").notNull(),
    knownAtStart: real("known_at_start").notNull(),
    learnOpportunities: real("learn_opportunities").notNull(),
    learnings: real("learnings").notNull(),
    teachOpportunities: real("teach_opportunities").notNull(),
    teachings: real("teachings").notNull(),
    partialEntries: real("partial_entries").notNull().default(0),
    directEntries: real("direct_entries").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.graphId, t.objective] })],
);

export const populationGraphs = sqliteTable("population_graphs", {
  graphId: text("graph_id").primaryKey(),
  version: integer("version").notNull(),
  learners: real("learners").notNull(),
  logSquares: real("log_squares").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

// --- Account-level analytics (migrations/0007_account_projections.sql) ---

export const accountProjections = sqliteTable(
  "account_projections",
  {
    accountId: text("account_id").notNull(),
    graphId: text("graph_id").notNull(),
    body: text("body", { mode: "json" }).$type<AccountGraphProjection>().notNull(),
    revision: integer("revision").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.graphId, t.accountId] })],
);

export const deadLetters = sqliteTable("dead_letters", {
  id: text("id").primaryKey(),
  queue: text("queue").notNull(),
  body: text("body").notNull(),
  attempts: integer("attempts").notNull(),
  receivedAt: integer("received_at").notNull(),
  replayRequestedAt: integer("replay_requested_at"),
});

// --- xAPI statements in (migrations/0010_xapi_statements.sql; docs/xapi.md) ---

export const xapiStatements = sqliteTable(
  "xapi_statements",
  {
    partnerId: text("partner_id").notNull(),
    statementId: text("statement_id").notNull(),
    registrationId: text("registration_id").notNull(),
    fingerprint: text("fingerprint").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.partnerId, t.statementId] })],
);

// --- Student data lifecycle (migrations/0009_data_lifecycle.sql) ---

/** The steps of an erasure job, in order (src/services/erasure/job.ts). */
export const ERASURE_STEPS = ["digests", "tokens", "objects", "projections", "cleanup"] as const;
export type ErasureStep = (typeof ERASURE_STEPS)[number];

export const erasures = sqliteTable(
  "erasures",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id").notNull(),
    subjectType: text("subject_type", { enum: ["account", "learning_instance"] }).notNull(),
    subjectId: text("subject_id").notNull(),
    status: text("status", { enum: ["pending", "complete"] }).notNull(),
    /** the job's next step (src/services/erasure/job.ts) */
    step: text("step", { enum: ERASURE_STEPS }).notNull(),
    requestedBy: text("requested_by").notNull(),
    requestedAt: integer("requested_at").notNull(),
    completedAt: integer("completed_at"),
    /** counts per store of the steps done so far */
    progress: text("progress", { mode: "json" }).$type<Record<string, number>>().notNull(),
    /** the receipt's counts per store, once complete */
    removed: text("removed", { mode: "json" }).$type<Record<string, number>>(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [uniqueIndex("erasures_subject").on(t.subjectType, t.subjectId), index("erasures_status").on(t.status, t.updatedAt)],
);

export const erasureTargets = sqliteTable(
  "erasure_targets",
  {
    erasureId: text("erasure_id").notNull(),
    registrationId: text("registration_id").notNull(),
    accountId: text("account_id").notNull(),
    learningInstanceId: text("learning_instance_id").notNull(),
    removed: text("removed", { mode: "json" }).$type<Record<string, number>>(),
  },
  (t) => [primaryKey({ columns: [t.erasureId, t.registrationId] }), index("erasure_targets_registration").on(t.registrationId)],
);

export const erasedRegistrations = sqliteTable("erased_registrations", {
  digest: text("digest").primaryKey(),
});

export const dataRequests = sqliteTable(
  "data_requests",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id").notNull(),
    kind: text("kind", { enum: ["erasure", "export"] }).notNull(),
    subjectType: text("subject_type", { enum: ["account", "learning_instance"] }).notNull(),
    subjectId: text("subject_id").notNull(),
    format: text("format"),
    requestedBy: text("requested_by").notNull(),
    requestId: text("request_id"),
    requestedAt: integer("requested_at").notNull(),
    outcome: text("outcome").notNull(),
    completedAt: integer("completed_at"),
    erasureId: text("erasure_id"),
    detail: text("detail", { mode: "json" }).$type<Record<string, number>>(),
  },
  (t) => [index("data_requests_partner").on(t.partnerId, t.requestedAt), index("data_requests_erasure").on(t.erasureId)],
);

export const retentionPasses = sqliteTable("retention_passes", {
  partnerId: text("partner_id").primaryKey(),
  startedAt: integer("started_at").notNull(),
  cursor: integer("cursor"),
  removedEvents: integer("removed_events").notNull(),
});

export type ErasureRow = typeof erasures.$inferSelect;
export type DataRequestRow = typeof dataRequests.$inferSelect;
