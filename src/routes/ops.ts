import { createRoute, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { registrations } from "../db/schema";
import { notFound } from "../errors";
import { operatorOnly } from "../http/operator";
import { createRouter } from "../http/router";
import type { AuditPage, AuditState } from "../objects/registration/rpc";
import { AuditPageSchema } from "../schemas/audit";
import { json, uuidParams } from "../schemas/common";
import { registrationObject } from "../services/registrations";

const MAX_PAGE = 1000;

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
  // The stub's type widens a tuple to an array (an event's `item`); the object returns an AuditPage.
  const page = (await stub.auditEvents(after, limit)) as AuditPage;
  const state: AuditState | undefined = after === 0 ? await stub.auditState() : undefined;
  return c.json({ registration_id: id, ...page, ...(state ? { state_matches_replay: state.state_matches_replay } : {}) }, 200);
});
