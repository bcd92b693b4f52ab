import { z } from "@hono/zod-openapi";
import { authorize } from "../http/authorize";
import { apiRoute } from "../http/define-route";
import { createRouter } from "../http/router";
import { json, jsonBody, uuidParams } from "../schemas/common";
import { InstanceStatusBody, RegistrationStatusBody, RegistrationStatusTableSchema, StatusTableSchema } from "../schemas/status-and-progress";
import { requireInstanceWithGraph } from "../services/learning-instances";
import { registrationContext } from "../services/registrations";
import { instanceStatusPage, registrationStatus } from "../services/status-and-progress";

const refused = json(z.any(), "A goal id names no scoped goal of the learning instance (details name it)");

const instanceRoute = apiRoute({
  method: "post",
  path: "/v0/learning-instances/{id}/metrics/status-and-progress",
  tags: ["Analytics"],
  summary: "Goal status and progress of the instance's learners, one page of registrations (creation order)",
  request: { params: uuidParams("id"), body: jsonBody(InstanceStatusBody) },
  responses: { 200: json(StatusTableSchema, "One row per learner registration with at least one of the goals assigned"), 422: refused },
});

const registrationRoute = apiRoute({
  method: "post",
  path: "/v0/registrations/{id}/metrics/status-and-progress",
  tags: ["Analytics"],
  summary: "Goal status and progress of one registration",
  request: { params: uuidParams("id"), body: jsonBody(RegistrationStatusBody) },
  responses: { 200: json(RegistrationStatusTableSchema, "One row"), 422: refused },
});

export const statusAndProgressRouter = createRouter()
  .openapi(instanceRoute, async (c) => {
    const { li, graph } = await requireInstanceWithGraph(c.get("db"), c.req.valid("param").id);
    await authorize(c, { kind: "Learning instance", partnerId: li.partnerId, learningInstanceId: li.id });
    const query = c.req.valid("json");
    const { columns, rows, more } = await instanceStatusPage(
      c.env,
      c.get("db"),
      li.id,
      graph,
      query.goal_ids,
      query.registration_offset,
      query.registrations_per_page,
    );
    const table: z.infer<typeof StatusTableSchema> = { query, column_headers: columns.map((g) => g.id), data: rows };
    if (more) table.next = { registration_offset: query.registration_offset + rows.length, registrations_per_page: query.registrations_per_page };
    return c.json(table, 200);
  })
  .openapi(registrationRoute, async (c) => {
    const context = await registrationContext(c.get("db"), c.req.valid("param").id);
    const r = context.registration;
    await authorize(c, { kind: "Registration", partnerId: r.partnerId, ownerAccountId: r.accountId, learningInstanceId: r.learningInstanceId });
    const query = c.req.valid("json");
    const { columns, row } = await registrationStatus(c.env, c.get("db"), r, { uuid: context.graphUuid, version: context.graphVersion }, query.goal_ids);
    return c.json({ query, column_headers: columns.map((g) => g.id), data: [row] }, 200);
  });
