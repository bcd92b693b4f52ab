import { z } from "@hono/zod-openapi";
import { pageQuery } from "./common";
import { StatusAndProgressSchema } from "./status-and-progress";

/** Student data lifecycle (docs/privacy.md): erasure, export, retention, the record. */

const SUBJECT_TYPES = ["account", "learning_instance"] as const;
const EXPORT_FORMATS = ["json", "xapi"] as const;

/** Retention may be set from one day to a hundred years. */
export const RETENTION_DAYS_MAX = 36_500;

export const ErasureAcceptedSchema = z
  .object({
    erasure_id: z.string().uuid(),
    status: z.enum(["pending", "complete"]),
  })
  .openapi("ErasureAccepted", { example: { erasure_id: "0f3c6c43-3d1e-4b0e-9a35-8c1c3e7a8b21", status: "pending" } });

/** Every store an erasure removes from (docs/privacy.md "Erasure"), as the receipt's `removed` names them. */
export const ERASURE_STORES = [
  "registrations",
  "goal_assignments",
  "account_projections",
  "access_tokens",
  "refresh_tokens",
  "applied_model_updates",
  "xapi_statements",
  "dead_letters",
  "goals",
  "token_gates",
  "rate_limit_windows",
  "registration_objects",
  "events",
  "idempotency_records",
  "outbox_messages",
  "xapi_statement_records",
  "object_values",
] as const;

const RemovedCount = z.number().int().min(0);
const storeCounts = Object.fromEntries(ERASURE_STORES.map((store) => [store, RemovedCount.optional()])) as Record<
  (typeof ERASURE_STORES)[number],
  z.ZodOptional<typeof RemovedCount>
>;

export const ErasureReceiptSchema = z
  .object({
    erasure_id: z.string().uuid(),
    account_id: z.string().uuid().optional().openapi({ description: "The erased account (account erasures)." }),
    learning_instance_id: z.string().uuid().optional().openapi({ description: "The erased learning instance (instance erasures)." }),
    status: z.enum(["pending", "complete"]),
    requested_at: z.string().openapi({ description: "ISO 8601 UTC" }),
    completed_at: z.string().nullable().openapi({ description: "ISO 8601 UTC; null while pending" }),
    removed: z.object(storeCounts).catchall(RemovedCount).openapi({
      description:
        "What was removed, per store (docs/privacy.md lists them): rows of each D1 table, the registrations' Durable Objects and what they held, token gates and their rate-limit windows. A complete receipt names every store listed here, 0 where nothing was removed (a table a later version adds to the registrations' objects appears under its own name). While pending: the stores counted so far.",
    }),
  })
  .openapi("ErasureReceipt", {
    example: {
      erasure_id: "0f3c6c43-3d1e-4b0e-9a35-8c1c3e7a8b21",
      account_id: "1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed",
      status: "complete",
      requested_at: "2026-11-25T10:00:00.000Z",
      completed_at: "2026-11-25T10:00:01.412Z",
      removed: {
        registrations: 2,
        goal_assignments: 2,
        account_projections: 1,
        access_tokens: 1,
        refresh_tokens: 1,
        applied_model_updates: 4,
        xapi_statements: 0,
        dead_letters: 0,
        goals: 0,
        token_gates: 1,
        rate_limit_windows: 0,
        registration_objects: 2,
        events: 1000,
        idempotency_records: 0,
        outbox_messages: 0,
        xapi_statement_records: 0,
        object_values: 30,
      },
    },
  });

export const ExportQuery = z.object({
  format: z
    .enum(EXPORT_FORMATS)
    .default("json")
    .openapi({ param: { name: "format", in: "query" }, description: "json (default): one JSON document; xapi: a JSON array of xAPI 1.0.3 statements." }),
});
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const Belief = z.object({
  learning_objective_id: z.string(),
  proficiency: z.number().min(0).max(1),
  lower: z.number().min(0).max(1),
  upper: z.number().min(0).max(1),
  evidence: z.number().int().min(0),
});

const ExportedEvent = z
  .object({
    type: z.enum(["graded-events", "ungraded-events", "recommendation-followed-events", "focus-events"]),
    received_at: z.string(),
    module_id: z.string().optional().openapi({ description: "As sent (mref- label or module uuid)." }),
    module: z.string().optional().openapi({ description: "The module's mref- label it was resolved to." }),
    interaction_end_time: z.string().optional(),
    time_followed: z.string().optional(),
    is_correct: z.boolean().optional(),
    duration: z.number().optional(),
    goal_id: z.string().optional(),
    instance_hash: z.string().optional(),
    recommendation_id: z.number().optional(),
    graph_version: z.number().int().optional(),
    statement_id: z.string().optional().openapi({ description: "The xAPI statement the event came from (POST /v0/xapi/statements)." }),
  })
  .openapi("ExportedEvent");

export const AccountExportSchema = z
  .object({
    format: z.literal("pathwise.account-export.v1"),
    exported_at: z.string(),
    account: z.object({ id: z.string().uuid(), external_user_id: z.string(), created_at: z.string(), disabled: z.boolean() }),
    registrations: z.array(
      z.object({
        id: z.string().uuid(),
        type: z.enum(["learner", "instructor"]),
        created_at: z.string(),
        deleted: z.boolean(),
        learning_instance: z.object({ id: z.string().uuid(), name: z.string(), graph_id: z.string() }),
        goal_assignments: z.array(z.object({ goal_id: z.string().uuid(), name: z.string(), assigned_at: z.string() })),
        beliefs: z.array(Belief).openapi({ description: "Current belief per learning objective the learner has worked on, with its 95% interval." }),
        goal_statuses: z.array(StatusAndProgressSchema).openapi({ description: "Status and progress of each assigned goal." }),
        events_removed_by_retention: z.number().int().min(0),
        events: z.array(ExportedEvent).openapi({ description: "Every stored event, oldest first, as received." }),
      }),
    ),
  })
  .openapi("AccountExport");

/** The xAPI statement the export writes (a subset of xAPI 1.0.3's Statement; docs/privacy.md "Export"). */
const LanguageMap = z.record(z.string(), z.string());
export const XapiStatementSchema = z
  .object({
    id: z.string().uuid(),
    actor: z.object({ objectType: z.literal("Agent"), account: z.object({ homePage: z.string(), name: z.string() }) }),
    verb: z.object({ id: z.string(), display: LanguageMap }),
    object: z.object({
      objectType: z.literal("Activity"),
      id: z.string(),
      definition: z.object({ type: z.string().optional(), name: LanguageMap.optional() }).optional(),
    }),
    result: z.object({ success: z.boolean().optional(), duration: z.string().optional() }).optional(),
    context: z.object({
      registration: z.string().uuid(),
      contextActivities: z.object({ grouping: z.array(z.object({ objectType: z.literal("Activity"), id: z.string() })) }).optional(),
      extensions: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
    }),
    timestamp: z.string(),
  })
  .openapi("XapiStatement");

export const DataRequestViewSchema = z
  .object({
    id: z.string().uuid(),
    type: z.enum(["erasure", "export"]),
    subject: z.object({ type: z.enum(SUBJECT_TYPES), id: z.string().uuid() }),
    format: z.enum(EXPORT_FORMATS).optional(),
    requested_by: z.object({
      account_id: z.string().uuid().openapi({ description: "The account whose token made the request (the partner admin)." }),
      request_id: z.string().optional().openapi({ description: "The request's X-Request-Id." }),
    }),
    requested_at: z.string(),
    outcome: z.enum(["pending", "complete", "streaming", "failed", "cancelled"]).openapi({
      description:
        "Erasure: pending, then complete. Export: streaming while it is sent, then complete (every byte handed over), failed (the service failed mid-way) or cancelled (the client went away).",
    }),
    completed_at: z.string().nullable(),
    erasure_id: z.string().uuid().optional(),
    detail: z.record(z.string(), z.number()).optional().openapi({ description: "Export: registrations, events and bytes sent." }),
  })
  .openapi("DataRequest");
export type DataRequestView = z.infer<typeof DataRequestViewSchema>;

export const DataRequestsQuery = pageQuery.extend({
  type: z
    .enum(["erasure", "export"])
    .optional()
    .openapi({ param: { name: "type", in: "query" } }),
  subject_id: z
    .string()
    .uuid({ message: "must be a UUID" })
    .toLowerCase()
    .optional()
    .openapi({ param: { name: "subject_id", in: "query" }, description: "Only the requests about this account or learning instance." }),
});

export const PartnerSettingsSchema = z
  .object({
    event_retention_days: z.number().int().min(1).max(RETENTION_DAYS_MAX).nullable().openapi({
      description:
        'Events received longer ago than this many days leave the registrations\' logs (their effect on the learner state stays); null: kept. docs/privacy.md "Retention".',
    }),
  })
  .openapi("PartnerSettings", { example: { event_retention_days: 365 } });
