import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { LearningInstanceRow } from "../db/schema";
import { notFound } from "../errors";
import type { AppEnv } from "../http/app-env";
import { apiRoute } from "../http/define-route";
import { createRouter } from "../http/router";
import { json, jsonBody, noContent, pageQuery, refusal, uuid } from "../schemas/common";
import { AssignmentSchema, BatchAssignmentBody, BatchAssignmentResult, GoalBodySchema, GoalSchema } from "../schemas/goals";
import { assign, batchAssignment, isAssigned, requireRegistrationOf, unassign } from "../services/goal-assignments";
import { createGoal, deleteGoal, goalScope, goalView, listGoals, requireGoalOf, resolvedScopeView, updateGoal } from "../services/goals";
import { requireLearningInstance } from "../services/learning-instances";
import { authorize, instanceSubject } from "./authorize";

const GOALS = "/v0/learning-instances/{id}/scoped-goals";
const GOAL = `${GOALS}/{goal_id}`;
const ASSIGNMENTS = `${GOAL}/registrations`;
const ASSIGNMENT = `${ASSIGNMENTS}/{registration_id}`;

const param = (name: string) => uuid.openapi({ param: { name, in: "path" }, example: "1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed" });
const liParams = z.object({ id: param("id") });
const goalParams = z.object({ id: param("id"), goal_id: param("goal_id") });
const assignmentParams = z.object({ id: param("id"), goal_id: param("goal_id"), registration_id: param("registration_id") });

const tags = ["Scoped goals"];
const refused422 = refusal("Semantically refused (see details)");

/** Loads the learning instance and applies the caller rule (Admin or an instructor of the instance). */
async function instanceFor(c: Context<AppEnv>, id: string): Promise<LearningInstanceRow> {
  const li = await requireLearningInstance(c.get("db"), id);
  await authorize(c, instanceSubject(li));
  return li;
}

const createRoute = apiRoute({
  method: "post",
  path: GOALS,
  tags,
  operationId: "createScopedGoal",
  summary: "Create a scoped goal",
  description:
    "A scoped goal says what learners of the instance should reach: target objectives (or taxonomy topics), the scope the recommendations draw from, the adaptive behavior (`practice`, `introduce`, `review`), completion criteria and timing (docs/goals.md). Targets must be in the instance's graph (422 otherwise). Assign it to registrations before asking for recommendations.",
  request: { params: liParams, body: jsonBody(GoalBodySchema) },
  responses: { 201: json(GoalSchema, "The new goal, defaults filled"), 422: refused422 },
});

const listRoute = apiRoute({
  method: "get",
  path: GOALS,
  tags,
  operationId: "listScopedGoals",
  summary: "List the scoped goals of a learning instance",
  description: "The instance's live goals in creation order, as a bare JSON array paged by `offset` and `limit`.",
  request: { params: liParams, query: pageQuery },
  responses: { 200: json(z.array(GoalSchema), "Goals") },
});

const getRoute = apiRoute({
  method: "get",
  path: GOAL,
  tags,
  operationId: "getScopedGoal",
  summary: "Get a scoped goal",
  description:
    "One goal with its defaults filled; `?resolved_scope=true` adds the resolved scope (the objectives and modules it covers in the graph's latest version).",
  request: {
    params: goalParams,
    query: z.object({
      resolved_scope: z
        .enum(["true", "false"])
        .optional()
        .openapi({ param: { name: "resolved_scope", in: "query" }, description: "true adds the scope resolved against the graph" }),
    }),
  },
  responses: { 200: json(GoalSchema, "The goal") },
});

const putRoute = apiRoute({
  method: "put",
  path: GOAL,
  tags,
  operationId: "updateScopedGoal",
  summary: "Replace a scoped goal",
  description:
    "Replaces the goal's body. `adaptive_behavior` and the kind of target (objectives or topics) cannot change (422). Assignments are kept; recommendations follow the new body from the next request on.",
  request: { params: goalParams, body: jsonBody(GoalBodySchema) },
  responses: { 200: json(GoalSchema, "The updated goal"), 422: refused422 },
});

const deleteRoute = apiRoute({
  method: "delete",
  path: GOAL,
  tags,
  operationId: "deleteScopedGoal",
  summary: "Delete a scoped goal",
  description: "Deletes the goal and its assignments. Events already stored that name it are kept.",
  request: { params: goalParams },
  responses: { 204: noContent },
});

const batchRoute = apiRoute({
  method: "put",
  path: ASSIGNMENTS,
  tags,
  operationId: "batchAssignScopedGoal",
  summary: "Assign or unassign a goal for many registrations",
  description:
    "`action` `assign` or `unassign` for up to 500 registration ids, or for every registration of a `type` in the instance. Answers the outcome per registration with failures grouped by reason; assignment is idempotent. Rate limits: `assign` 10 and `unassign` 100 requests a minute per token, in separate windows.",
  request: { params: goalParams, body: jsonBody(BatchAssignmentBody) },
  responses: { 200: json(BatchAssignmentResult, "Per-registration outcome; failures grouped by reason") },
});

const assignRoute = apiRoute({
  method: "put",
  path: ASSIGNMENT,
  tags,
  operationId: "assignScopedGoal",
  summary: "Assign a goal to a registration",
  description:
    "Assigns the goal to one registration of the same instance (an instructor registration is 422). Idempotent: assigning again answers the existing assignment.",
  request: { params: assignmentParams },
  responses: { 200: json(AssignmentSchema, "The assignment"), 422: refused422 },
});

const checkRoute = apiRoute({
  method: "get",
  path: ASSIGNMENT,
  tags,
  operationId: "getScopedGoalAssignment",
  summary: "Get a goal assignment",
  description: "The assignment of the goal to the registration; 404 when the goal is not assigned to it.",
  request: { params: assignmentParams },
  responses: { 200: json(AssignmentSchema, "The assignment") },
});

const unassignRoute = apiRoute({
  method: "delete",
  path: ASSIGNMENT,
  tags,
  operationId: "unassignScopedGoal",
  summary: "Unassign a goal from a registration",
  description: "Removes the assignment; 404 when the goal was not assigned to the registration. The learner's events and model are kept.",
  request: { params: assignmentParams },
  responses: { 204: noContent },
});

const notAssigned = () => notFound("Goal assignment");

export const goalsRouter = createRouter()
  .openapi(createRoute, async (c) => {
    const li = await instanceFor(c, c.req.valid("param").id);
    const row = await createGoal(c.get("db"), li, c.req.valid("json"));
    return c.json(goalView(row), 201);
  })
  .openapi(listRoute, async (c) => {
    const li = await instanceFor(c, c.req.valid("param").id);
    const { offset, limit } = c.req.valid("query");
    const rows = await listGoals(c.get("db"), li.id, offset, limit);
    return c.json(rows.map(goalView), 200);
  })
  .openapi(getRoute, async (c) => {
    const { id, goal_id } = c.req.valid("param");
    const li = await instanceFor(c, id);
    const goal = await requireGoalOf(c.get("db"), li, goal_id);
    const view = goalView(goal);
    if (c.req.valid("query").resolved_scope !== "true") return c.json(view, 200);
    return c.json({ ...view, resolved_scope: resolvedScopeView(await goalScope(c.get("db"), goal)) }, 200);
  })
  .openapi(putRoute, async (c) => {
    const { id, goal_id } = c.req.valid("param");
    const li = await instanceFor(c, id);
    const current = await requireGoalOf(c.get("db"), li, goal_id);
    const row = await updateGoal(c.get("db"), li, current, c.req.valid("json"));
    return c.json(goalView(row), 200);
  })
  .openapi(deleteRoute, async (c) => {
    const { id, goal_id } = c.req.valid("param");
    const li = await instanceFor(c, id);
    const goal = await requireGoalOf(c.get("db"), li, goal_id);
    await deleteGoal(c.get("db"), goal.id);
    return c.body(null, 204);
  })
  .openapi(batchRoute, async (c) => {
    const { id, goal_id } = c.req.valid("param");
    const li = await instanceFor(c, id);
    const goal = await requireGoalOf(c.get("db"), li, goal_id);
    const body = c.req.valid("json");
    const target = body.registration_type ? { registration_type: body.registration_type } : { registration_ids: body.registration_ids ?? [] };
    return c.json(await batchAssignment(c.get("db"), li, goal, body.action, target), 200);
  })
  .openapi(assignRoute, async (c) => {
    const { id, goal_id, registration_id } = c.req.valid("param");
    const db = c.get("db");
    const li = await instanceFor(c, id);
    const goal = await requireGoalOf(db, li, goal_id);
    const reg = await requireRegistrationOf(db, li, registration_id);
    await assign(db, goal.id, reg.id);
    return c.json({ goal_id: goal.id, registration_id: reg.id }, 200);
  })
  .openapi(checkRoute, async (c) => {
    const { id, goal_id, registration_id } = c.req.valid("param");
    const db = c.get("db");
    const li = await instanceFor(c, id);
    const goal = await requireGoalOf(db, li, goal_id);
    const regId = registration_id.toLowerCase();
    if (!(await isAssigned(db, goal.id, regId))) throw notAssigned();
    return c.json({ goal_id: goal.id, registration_id: regId }, 200);
  })
  .openapi(unassignRoute, async (c) => {
    const { id, goal_id, registration_id } = c.req.valid("param");
    const db = c.get("db");
    const li = await instanceFor(c, id);
    const goal = await requireGoalOf(db, li, goal_id);
    const regId = registration_id.toLowerCase();
    // A deleted registration's leftover assignment counts as not assigned.
    if (!(await isAssigned(db, goal.id, regId))) throw notAssigned();
    await unassign(db, goal.id, regId);
    return c.body(null, 204);
  });
