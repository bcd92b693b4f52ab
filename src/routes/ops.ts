import { eq } from "drizzle-orm";
import { registrations } from "../db/schema";
import { ApiError, badRequest } from "../http/errors";
import { operatorOnly } from "../http/operator";
import { createRouter } from "../http/router";
import type { AuditPage, AuditState } from "../objects/registration/rpc";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAX_PAGE = 1000;

/**
 * Operator diagnostics, not part of the partner API (not in the OpenAPI document; docs/security.md):
 * `GET /ops/registrations/{id}/audit?after=SEQ&limit=N` pages through a registration's stored events
 * (any partner's) and, on the first page, reports whether its learner state equals the replay of
 * its event log. Read-only; off unless OPERATOR_TOKEN is set. The soak test uses it to prove
 * exactly-once storage against a running Worker.
 */
export const opsRouter = createRouter().get("/ops/registrations/:id/audit", operatorOnly(), async (c) => {
  const id = c.req.param("id").toLowerCase();
  if (!UUID.test(id)) throw badRequest("The registration id must be a UUID.", [{ path: "path.id", message: "must be a UUID" }]);
  const after = Number(c.req.query("after") ?? 0);
  const limit = Number(c.req.query("limit") ?? MAX_PAGE);
  if (!Number.isSafeInteger(after) || after < 0) throw badRequest("after must be a whole number >= 0.", [{ path: "query.after", message: "invalid" }]);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE)
    throw badRequest(`limit must be 1 to ${MAX_PAGE}.`, [{ path: "query.limit", message: "invalid" }]);
  // Deleted registrations too (their logs are kept); an id never registered is 404 without creating an object for it.
  const known = await c.get("db").select({ id: registrations.id }).from(registrations).where(eq(registrations.id, id)).get();
  if (!known) throw new ApiError(404, "Registration not found.");
  const stub = c.env.REGISTRATIONS.get(c.env.REGISTRATIONS.idFromName(id));
  const page: AuditPage = await stub.auditEvents(after, limit);
  const state: AuditState | undefined = after === 0 ? await stub.auditState() : undefined;
  return c.json({ registration_id: id, ...page, ...(state ? { state_matches_replay: state.state_matches_replay } : {}) }, 200);
});
