import { apiRoute } from "../http/define-route";
import { createRouter } from "../http/router";
import { json, jsonBody, unknownGoalRefused, uuidParams } from "../schemas/common";
import { InstanceStatusBody, RegistrationStatusBody, RegistrationStatusTableSchema, StatusTableSchema } from "../schemas/status-and-progress";
import { nextPage } from "../services/goal-specs";
import { instanceStatusPage, registrationStatus } from "../services/status-and-progress";
import { authorizedInstance, authorizedRegistration } from "./authorize";

const instanceRoute = apiRoute({
  method: "post",
  path: "/v0/learning-instances/{id}/metrics/status-and-progress",
  tags: ["Analytics"],
  operationId: "getLearningInstanceStatusAndProgress",
  summary: "Get goal status and progress of a learning instance",
  description:
    "Status (`no_work`, `in_progress`, `stuck`, `completed`...) and progress of each requested goal for the instance's learners: one row per learner registration with at least one of the goals assigned, in creation order, one page at a time (`registration_offset`, `registrations_per_page`; `next` says where the next page starts).",
  request: { params: uuidParams("id"), body: jsonBody(InstanceStatusBody) },
  responses: { 200: json(StatusTableSchema, "One row per learner registration with at least one of the goals assigned"), 422: unknownGoalRefused },
});

const registrationRoute = apiRoute({
  method: "post",
  path: "/v0/registrations/{id}/metrics/status-and-progress",
  tags: ["Analytics"],
  operationId: "getRegistrationStatusAndProgress",
  summary: "Get goal status and progress of a registration",
  description:
    "Status and progress of each requested goal for one registration, by the same rules as the recommendation's readiness and stuck. A goal not assigned to it is `no_work`.",
  request: { params: uuidParams("id"), body: jsonBody(RegistrationStatusBody) },
  responses: { 200: json(RegistrationStatusTableSchema, "One row"), 422: unknownGoalRefused },
});

export const statusAndProgressRouter = createRouter()
  .openapi(instanceRoute, async (c) => {
    const { li, graph } = await authorizedInstance(c, c.req.valid("param").id);
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
    return c.json({ query, column_headers: columns.map((g) => g.id), data: rows, ...nextPage(query, rows.length, more) }, 200);
  })
  .openapi(registrationRoute, async (c) => {
    const context = await authorizedRegistration(c, c.req.valid("param").id);
    const r = context.registration;
    const query = c.req.valid("json");
    const { columns, row } = await registrationStatus(c.env, c.get("db"), r, { uuid: context.graphUuid, version: context.graphVersion }, query.goal_ids);
    return c.json({ query, column_headers: columns.map((g) => g.id), data: [row] }, 200);
  });
