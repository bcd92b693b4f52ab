import { z } from "@hono/zod-openapi";
import { apiRoute } from "../http/define-route";
import { createRouter } from "../http/router";
import { json, jsonBody } from "../schemas/common";
import { DataRequestsQuery, DataRequestViewSchema, PartnerSettingsSchema } from "../schemas/data-lifecycle";
import { dataRequestView, listDataRequests } from "../services/data-requests";
import { partnerSettings, updatePartnerSettings } from "../services/partner-settings";
import { authorize } from "./authorize";

const listRoute = apiRoute({
  method: "get",
  path: "/v0/data-requests",
  operationId: "listDataRequests",
  tags: ["Data lifecycle"],
  summary: "The record of data requests: every export and erasure, who asked, when, what, and the outcome",
  description:
    "Newest first (bare array, paged by offset/limit; `type` and `subject_id` filter). Records are kept when their subject is erased: they are the proof it was. Partner admin only.",
  request: { query: DataRequestsQuery },
  responses: { 200: json(z.array(DataRequestViewSchema), "Data requests, newest first") },
});

const getSettingsRoute = apiRoute({
  method: "get",
  path: "/v0/partner/settings",
  operationId: "getPartnerSettings",
  tags: ["Data lifecycle"],
  summary: "The partner's settings (event retention)",
  description: "Partner admin only.",
  responses: { 200: json(PartnerSettingsSchema, "The settings") },
});

const putSettingsRoute = apiRoute({
  method: "put",
  path: "/v0/partner/settings",
  operationId: "updatePartnerSettings",
  tags: ["Data lifecycle"],
  summary: "Set the partner's settings (event retention)",
  description:
    '`event_retention_days`: events received longer ago leave the registrations\' logs by a scheduled job, once folded into the learner state; the state, recommendations and analytics keep working (docs/privacy.md "Retention" says what is lost). `null`: keep every event. Partner admin only.',
  request: { body: jsonBody(PartnerSettingsSchema) },
  responses: { 200: json(PartnerSettingsSchema, "The settings now in force") },
});

export const dataRequestsRouter = createRouter()
  .openapi(listRoute, async (c) => {
    await authorize(c);
    const { offset, limit, type, subject_id } = c.req.valid("query");
    const rows = await listDataRequests(c.get("db"), c.get("caller").partnerId, { type, subjectId: subject_id }, offset, limit);
    return c.json(rows.map(dataRequestView), 200);
  })
  .openapi(getSettingsRoute, async (c) => {
    await authorize(c);
    return c.json(await partnerSettings(c.get("db"), c.get("caller").partnerId), 200);
  })
  .openapi(putSettingsRoute, async (c) => {
    await authorize(c);
    return c.json(await updatePartnerSettings(c.get("db"), c.get("caller").partnerId, c.req.valid("json")), 200);
  });
