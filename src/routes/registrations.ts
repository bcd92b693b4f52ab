import { apiRoute } from "../http/define-route";
import { createRouter } from "../http/router";
import { json, jsonBody, noContent, refusal, uuidParams } from "../schemas/common";
import { CreateRegistrationBody, RegistrationSchema } from "../schemas/registrations";
import { findAccount } from "../services/accounts";
import { requireLearningInstance } from "../services/learning-instances";
import { createRegistration, deleteRegistration, registrationView, requireRegistration } from "../services/registrations";
import { authorize, instanceSubject, registrationSubject } from "./authorize";

const regParams = uuidParams("reg_id");

const createRoute = apiRoute({
  method: "post",
  path: "/v0/registrations",
  tags: ["Registrations"],
  operationId: "createRegistration",
  summary: "Register an account in a learning instance",
  description:
    "Registers an account as a `learner` or an `instructor` of a learning instance. An account has at most one live registration per instance (a second is 422); a disabled account cannot be registered (422). Learner registrations: the admin or an instructor of the instance; instructor registrations: the admin only.",
  request: { body: jsonBody(CreateRegistrationBody) },
  responses: {
    201: json(RegistrationSchema, "The new registration"),
    422: refusal("Unknown or disabled account, or already registered"),
  },
});

const getRoute = apiRoute({
  method: "get",
  path: "/v0/registrations/{reg_id}",
  tags: ["Registrations"],
  operationId: "getRegistration",
  summary: "Get a registration",
  description: "One registration: its account, learning instance, type and creation time.",
  request: { params: regParams },
  responses: { 200: json(RegistrationSchema, "The registration") },
});

const deleteRoute = apiRoute({
  method: "delete",
  path: "/v0/registrations/{reg_id}",
  tags: ["Registrations"],
  operationId: "deleteRegistration",
  summary: "Delete a registration",
  description: "Removes the registration from the API (soft delete: its event log is kept); its goal assignments go with it.",
  request: { params: regParams },
  responses: { 204: noContent },
});

export const registrationsRouter = createRouter()
  .openapi(createRoute, async (c) => {
    const body = c.req.valid("json");
    const db = c.get("db");
    // The caller rule is evaluated on the learning instance named in the body.
    const li = await requireLearningInstance(db, body.learning_instance_id);
    await authorize(c, instanceSubject(li), body.type === "instructor" ? ["admin"] : undefined);
    const row = await createRegistration(db, await findAccount(db, body.account_id), li, body.type);
    return c.json(registrationView(row), 201);
  })
  .openapi(getRoute, async (c) => {
    const reg = await requireRegistration(c.get("db"), c.req.valid("param").reg_id);
    await authorize(c, registrationSubject(reg));
    return c.json(registrationView(reg), 200);
  })
  .openapi(deleteRoute, async (c) => {
    const reg = await requireRegistration(c.get("db"), c.req.valid("param").reg_id);
    await authorize(c, registrationSubject(reg));
    await deleteRegistration(c.get("db"), reg.id);
    return c.body(null, 204);
  });
