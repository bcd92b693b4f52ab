import { z } from "@hono/zod-openapi";
import type { LearningInstanceRow } from "../db/schema";
import { authorize, type Subject } from "../http/authorize";
import { unprocessable } from "../http/errors";
import { apiRoute } from "../lib/define-route";
import { createRouter } from "../lib/router";
import {
  createLearningInstance,
  deleteLearningInstance,
  learningInstanceView,
  listLearningInstances,
  listRegistrationsOfInstance,
  requireLearningInstance,
  updateLearningInstance,
} from "../services/learning-instances";
import { registrationView } from "../services/registrations";
import { isoDateTime, json, jsonBody, noContent, pageQuery, uuidParams } from "./common.schemas";
import { RegistrationSchema } from "./registrations.schemas";

const GraphId = z
  .string()
  .min(1)
  .max(200)
  .refine((v) => v.startsWith("gref-") || z.string().uuid().safeParse(v).success, { message: "must be a graph uuid or a gref- label" })
  .openapi({ example: "gref-pre-algebra" });
const Name = z.string().trim().min(1).max(200).openapi({ description: "No personal data: a name with an e-mail address is refused (422)." });

export const LearningInstanceSchema = z
  .object({
    id: z.string().uuid(),
    graph_id: z.string(),
    name: z.string(),
    start_date: z.string().optional(),
    end_date: z.string().optional(),
    in_progress: z.literal(true).openapi({ description: "Deprecated; always true." }),
  })
  .openapi("LearningInstance");

const CreateBody = z
  .object({ graph_id: GraphId, name: Name, start_date: isoDateTime.optional(), end_date: isoDateTime.optional() })
  .openapi("CreateLearningInstance");

const UpdateBody = z
  .object({
    name: Name.optional(),
    start_date: isoDateTime.nullable().optional(),
    end_date: isoDateTime.nullable().optional(),
    graph_id: z.string().optional().openapi({ description: "Immutable: may be repeated unchanged; a different value is refused (422)." }),
  })
  .openapi("UpdateLearningInstance");

const idParams = uuidParams("id");

const subjectOf = (li: LearningInstanceRow): Subject => ({ kind: "Learning instance", partnerId: li.partnerId, learningInstanceId: li.id });

const createRouteDef = apiRoute({
  method: "post",
  path: "/v0/learning-instances",
  tags: ["Learning instances"],
  summary: "Create a learning instance (a course teaching one graph)",
  request: { body: jsonBody(CreateBody) },
  responses: {
    201: json(LearningInstanceSchema, "The new learning instance"),
    422: json(z.any(), "Unknown graph_id (not a graph of this partner), name holds an e-mail address, or dates out of order"),
  },
});

const listRouteDef = apiRoute({
  method: "get",
  path: "/v0/learning-instances",
  tags: ["Learning instances"],
  summary: "List the partner's learning instances (bare array, paged by offset/limit)",
  request: { query: pageQuery },
  responses: { 200: json(z.array(LearningInstanceSchema), "Learning instances in creation order") },
});

const getRouteDef = apiRoute({
  method: "get",
  path: "/v0/learning-instances/{id}",
  tags: ["Learning instances"],
  summary: "Get a learning instance",
  request: { params: idParams },
  responses: { 200: json(LearningInstanceSchema, "The learning instance") },
});

const putRouteDef = apiRoute({
  method: "put",
  path: "/v0/learning-instances/{id}",
  tags: ["Learning instances"],
  summary: "Update name and dates (graph_id is immutable)",
  request: { params: idParams, body: jsonBody(UpdateBody) },
  responses: { 200: json(LearningInstanceSchema, "The updated learning instance"), 422: json(z.any(), "Name holds an e-mail address, or dates out of order") },
});

const deleteRouteDef = apiRoute({
  method: "delete",
  path: "/v0/learning-instances/{id}",
  tags: ["Learning instances"],
  summary: "Delete a learning instance and its registrations",
  request: { params: idParams },
  responses: { 204: noContent },
});

const registrationsRouteDef = apiRoute({
  method: "get",
  path: "/v0/learning-instances/{li_id}/registrations",
  tags: ["Learning instances"],
  summary: "Registrations of the instance (bare array; optional type filter; paged by offset/limit)",
  request: {
    params: uuidParams("li_id"),
    query: pageQuery.extend({
      type: z
        .enum(["learner", "instructor"])
        .optional()
        .openapi({ param: { name: "type", in: "query" } }),
    }),
  },
  responses: { 200: json(z.array(RegistrationSchema), "Registrations in creation order") },
});

export const learningInstancesRouter = createRouter()
  .openapi(createRouteDef, async (c) => {
    await authorize(c);
    const row = await createLearningInstance(c.get("db"), c.get("caller").partnerId, c.req.valid("json"));
    return c.json(learningInstanceView(row), 201);
  })
  .openapi(listRouteDef, async (c) => {
    await authorize(c);
    const { offset, limit } = c.req.valid("query");
    const rows = await listLearningInstances(c.get("db"), c.get("caller").partnerId, offset, limit);
    return c.json(rows.map(learningInstanceView), 200);
  })
  .openapi(getRouteDef, async (c) => {
    const li = await requireLearningInstance(c.get("db"), c.req.valid("param").id);
    await authorize(c, subjectOf(li));
    return c.json(learningInstanceView(li), 200);
  })
  .openapi(putRouteDef, async (c) => {
    const li = await requireLearningInstance(c.get("db"), c.req.valid("param").id);
    await authorize(c, subjectOf(li));
    const { graph_id, ...fields } = c.req.valid("json");
    if (graph_id !== undefined && graph_id !== li.graphId && graph_id.toLowerCase() !== li.graphUuid) {
      throw unprocessable("graph_id cannot be changed after creation.", [{ path: "body.graph_id", message: "immutable" }]);
    }
    const updated = await updateLearningInstance(c.get("db"), li, fields);
    return c.json(learningInstanceView(updated), 200);
  })
  .openapi(deleteRouteDef, async (c) => {
    const li = await requireLearningInstance(c.get("db"), c.req.valid("param").id);
    await authorize(c, subjectOf(li));
    await deleteLearningInstance(c.get("db"), li.id);
    return c.body(null, 204);
  })
  .openapi(registrationsRouteDef, async (c) => {
    const li = await requireLearningInstance(c.get("db"), c.req.valid("param").li_id);
    await authorize(c, subjectOf(li));
    const { type, offset, limit } = c.req.valid("query");
    const rows = await listRegistrationsOfInstance(c.get("db"), li.id, type, offset, limit);
    return c.json(rows.map(registrationView), 200);
  });
