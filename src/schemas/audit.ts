import { z } from "@hono/zod-openapi";

/*
 * The operator audit's answer (GET /ops/registrations/{id}/audit, docs/security.md "Operator
 * diagnostics"; not in the OpenAPI document). It hands out the registration's event log as stored,
 * so the stored body's type (LoggedBody, written by src/objects/registration/event-log.ts) is
 * inferred from the schema here: the two cannot drift apart.
 */

/** What an event row's `body` holds: the event as accepted (the fields the API took, as the API names them), plus the item parameters it was applied with. */
const LoggedBodySchema = z.object({
  module_id: z.string().optional(),
  is_correct: z.boolean().optional(),
  duration: z.number().optional(),
  goal_id: z.string().optional(),
  instance_hash: z.string().optional(),
  recommendation_id: z.number().optional(),
  statement_id: z.string().optional().openapi({ description: "The xAPI statement the event came from." }),
  item: z
    .tuple([z.number(), z.number(), z.number(), z.number()])
    .optional()
    .openapi({ description: "The item parameters the event was applied with (easiness, difficulty, count, shift)." }),
});

export type LoggedBody = z.infer<typeof LoggedBodySchema>;

/** A row of the registration's event log, its body parsed. */
const AuditedEventSchema = z.object({
  seq: z.number().int(),
  kind: z.string().openapi({ description: "graded, ungraded, recommendation-followed or focus" }),
  module: z.string().nullable().openapi({ description: "The module's mref- label as resolved on acceptance; null for focus events." }),
  graph_version: z.number().int().nullable(),
  occurred_at: z.number().openapi({ description: "interaction_end_time or time_followed (focus: time received), ms since the epoch" }),
  body: LoggedBodySchema,
});

export type AuditedEvent = z.infer<typeof AuditedEventSchema>;

export const AuditPageSchema = z.object({
  registration_id: z.string().uuid(),
  event_count: z.number().int(),
  events: z.array(AuditedEventSchema),
  next_after: z.number().int().optional().openapi({ description: "The `after` of the next page; absent on the last page." }),
  state_matches_replay: z.boolean().optional().openapi({ description: "First page only: the kept learner state equals its replay from the log." }),
});
