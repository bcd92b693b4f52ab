import { createRoute, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { registrations } from "../db/schema";
import { notFound } from "../errors";
import { operatorOnly } from "../http/operator";
import { createRouter } from "../http/router";
import type { AuditPage, AuditState } from "../objects/registration/rpc";
import { json, uuidParams } from "../schemas/common";
import { registrationObject } from "../services/registrations";

const MAX_PAGE = 1000;

/** A row of the registration's event log (src/objects/registration/event-log.ts), its body parsed. */
const AuditedEventSchema = z.object({
  seq: z.number().int(),
  kind: z.string().openapi({ description: "graded, ungraded, recommendation-followed or focus" }),
  module: z.string().nullable().openapi({ description: "The module's mref- label as resolved on acceptance; null for focus events." }),
  graph_version: z.number().int().nullable(),
  occurred_at: z.number().openapi({ description: "interaction_end_time or time_followed (focus: time received), ms since the epoch" }),
  body: z.object({
    module_id: z.string().optional(),
    is_correct: z.boolean().optional(),
    duration: z.number().optional(),
    goal_id: z.string().optional(),
    instance_hash: z.string().optional(),
    recommendation_id: z.number().optional(),
    statement_id: z.string().optional(),
    item: z.tuple([z.number(), z.number(), z.number(), z.number()]).optional().openapi({ description: "The item parameters the event was applied with." }),
  }),
});

type AuditedEvent = z.infer<typeof AuditedEventSchema>;

const AuditPageSchema = z.object({
  registration_id: z.string().uuid(),
  event_count: z.number().int(),
  events: z.array(AuditedEventSchema),
  next_after: z.number().int().optional().openapi({ description: "The `after` of the next page; absent on the last page." }),
  state_matches_replay: z.boolean().optional().openapi({ description: "First page only: the kept learner state equals its replay from the log." }),
});

const auditRoute = createRoute({
  method: "get",
  path: "/ops/registrations/{id}/audit",
  hide: true,
  middleware: [operatorOnly()] as const,
  request: {
    params: uuidParams("id"),
    query: z.object({
      after: z.coerce.number().int().min(0).default(0),
      limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(MAX_PAGE),
    }),
  },
  responses: { 200: json(AuditPageSchema, "The stored events, oldest first") },
});

/**
 * Operator diagnostics, not part of the partner API (not in the OpenAPI document; docs/security.md):
 * `GET /ops/registrations/{id}/audit?after=SEQ&limit=N` pages through a registration's stored events
 * (any partner's) and, on the first page, reports whether its learner state equals the replay of
 * its event log. Read-only; off unless OPERATOR_TOKEN is set. The soak test uses it to prove
 * exactly-once storage against a running Worker. Its parameters take the API's validation path (400 with details).
 */
export const opsRouter = createRouter().openapi(auditRoute, async (c) => {
  const { id } = c.req.valid("param");
  const { after, limit } = c.req.valid("query");
  // Deleted registrations too (their logs are kept); an id never registered is 404 without creating an object for it.
  const known = await c.get("db").select({ id: registrations.id }).from(registrations).where(eq(registrations.id, id)).get();
  if (!known) throw notFound("Registration");
  const stub = registrationObject(c.env, id);
  const page: AuditPage = await stub.auditEvents(after, limit);
  const state: AuditState | undefined = after === 0 ? await stub.auditState() : undefined;
  // The RPC type leaves a body `unknown`: it is the row's parsed LoggedBody (event-log.ts), which AuditedEventSchema spells.
  const events = page.events as AuditedEvent[];
  return c.json({ registration_id: id, ...page, events, ...(state ? { state_matches_replay: state.state_matches_replay } : {}) }, 200);
});
