import { z } from "@hono/zod-openapi";
import { unprocessable } from "../errors";
import { apiRoute } from "../http/define-route";
import { createRouter } from "../http/router";
import { json, jsonBody, noContent, pageQuery, refusal, uuidParams } from "../schemas/common";
import { CreateLearningInstanceBody, LearningInstanceSchema, UpdateLearningInstanceBody } from "../schemas/learning-instances";
import { RegistrationSchema, RegistrationType } from "../schemas/registrations";
import {
  createLearningInstance,
  deleteLearningInstance,
  learningInstanceView,
  listLearningInstances,
  listRegistrationsOfInstance,
  namesInstanceGraph,
  requireLearningInstance,
  updateLearningInstance,
} from "../services/learning-instances";
import { registrationView } from "../services/registrations";
import { authorize, instanceSubject } from "./authorize";

const idParams = uuidParams("id");

const createRoute = apiRoute({
  method: "post",
  path: "/v0/learning-instances",
  tags: ["Learning instances"],
  operationId: "createLearningInstance",
  summary: "Create a learning instance",
  description:
    "A learning instance is a course or class section teaching one knowledge graph (`graph_id`: a graph uuid or gref- label of this partner; immutable). Optional `start_date` and `end_date` bound it; goals and registrations belong to it.",
  request: { body: jsonBody(CreateLearningInstanceBody) },
  responses: {
    201: json(LearningInstanceSchema, "The new learning instance"),
    422: refusal("Unknown graph_id (not a graph of this partner), name holds an e-mail address, or dates out of order"),
  },
});

const listRoute = apiRoute({
  method: "get",
  path: "/v0/learning-instances",
  tags: ["Learning instances"],
  operationId: "listLearningInstances",
  summary: "List learning instances",
  description: "The partner's live learning instances in creation order, as a bare JSON array paged by `offset` and `limit` (default 100, at most 500).",
  request: { query: pageQuery },
  responses: { 200: json(z.array(LearningInstanceSchema), "Learning instances in creation order") },
});

const getRoute = apiRoute({
  method: "get",
  path: "/v0/learning-instances/{id}",
  tags: ["Learning instances"],
  operationId: "getLearningInstance",
  summary: "Get a learning instance",
  description: "One learning instance. The partner admin, or any end user registered in it (learner or instructor).",
  request: { params: idParams },
  responses: { 200: json(LearningInstanceSchema, "The learning instance") },
});

const putRoute = apiRoute({
  method: "put",
  path: "/v0/learning-instances/{id}",
  tags: ["Learning instances"],
  operationId: "updateLearningInstance",
  summary: "Update a learning instance",
  description:
    "Changes the name and the dates (`null` clears a date). `graph_id` may be sent only if it names the instance's own graph (a no-op); another graph is 422. An end before the start is 422.",
  request: { params: idParams, body: jsonBody(UpdateLearningInstanceBody) },
  responses: { 200: json(LearningInstanceSchema, "The updated learning instance"), 422: refusal("Name holds an e-mail address, or dates out of order") },
});

const deleteRoute = apiRoute({
  method: "delete",
  path: "/v0/learning-instances/{id}",
  tags: ["Learning instances"],
  operationId: "deleteLearningInstance",
  summary: "Delete a learning instance",
  description:
    "Deletes the learning instance, its registrations and its goals from the API (soft delete: the event logs are kept). A registration or goal being created concurrently is refused with 404.",
  request: { params: idParams },
  responses: { 204: noContent },
});

const registrationsRoute = apiRoute({
  method: "get",
  path: "/v0/learning-instances/{li_id}/registrations",
  tags: ["Learning instances"],
  operationId: "listLearningInstanceRegistrations",
  summary: "List the registrations of a learning instance",
  description:
    "The instance's live registrations in creation order, optionally only `type=learner` or `type=instructor`; a bare JSON array paged by `offset` and `limit` (default 100, at most 500).",
  request: {
    params: uuidParams("li_id"),
    query: pageQuery.extend({
      type: RegistrationType.optional().openapi({ param: { name: "type", in: "query" } }),
    }),
  },
  responses: { 200: json(z.array(RegistrationSchema), "Registrations in creation order") },
});

export const learningInstancesRouter = createRouter()
  .openapi(createRoute, async (c) => {
    await authorize(c);
    const row = await createLearningInstance(c.get("db"), c.get("caller").partnerId, c.req.valid("json"));
    return c.json(learningInstanceView(row), 201);
  })
  .openapi(listRoute, async (c) => {
    await authorize(c);
    const { offset, limit } = c.req.valid("query");
    const rows = await listLearningInstances(c.get("db"), c.get("caller").partnerId, offset, limit);
    return c.json(rows.map(learningInstanceView), 200);
  })
  .openapi(getRoute, async (c) => {
    const li = await requireLearningInstance(c.get("db"), c.req.valid("param").id);
    await authorize(c, instanceSubject(li));
    return c.json(learningInstanceView(li), 200);
  })
  .openapi(putRoute, async (c) => {
    const li = await requireLearningInstance(c.get("db"), c.req.valid("param").id);
    await authorize(c, instanceSubject(li));
    const { graph_id, ...fields } = c.req.valid("json");
    if (graph_id !== undefined && !(await namesInstanceGraph(c.get("db"), li, graph_id))) {
      throw unprocessable("graph_id cannot be changed after creation.", [{ path: "body.graph_id", message: "immutable" }]);
    }
    const updated = await updateLearningInstance(c.get("db"), li, fields);
    return c.json(learningInstanceView(updated), 200);
  })
  .openapi(deleteRoute, async (c) => {
    const li = await requireLearningInstance(c.get("db"), c.req.valid("param").id);
    await authorize(c, instanceSubject(li));
    await deleteLearningInstance(c.get("db"), li.id);
    return c.body(null, 204);
  })
  .openapi(registrationsRoute, async (c) => {
    const li = await requireLearningInstance(c.get("db"), c.req.valid("param").li_id);
    await authorize(c, instanceSubject(li));
    const { type, offset, limit } = c.req.valid("query");
    const rows = await listRegistrationsOfInstance(c.get("db"), li.id, type, offset, limit);
    return c.json(rows.map(registrationView), 200);
  });
