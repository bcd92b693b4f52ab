import type { IngestRequest } from "../../src/objects/registration/rpc";
import { createAccount, createInstance, type Json, type Partner, register } from "./api";
import { createGoal } from "./goals";
import { api } from "./typed-api";

/**
 * A new learner's registration with a goal, and what the event route hands its Durable Object for one
 * graded event naming that goal once D1 said the registration exists. Naming a goal makes the object
 * read D1 before it stores anything: a moment in which another call to the object runs (tests of races
 * inside the object call `ingest` on the stub with it).
 */
export async function ingestNamingGoal(p: Partner): Promise<{ reg: Json; request: IngestRequest }> {
  const li = await createInstance(p);
  const reg = await register(p, (await createAccount(p)).id, li.id, "learner");
  const goal = await createGoal(p, li.id);
  const graph = (await api("GET", "/v0/graphs/{graph_id}", { token: p.adminToken, path: { graph_id: "gref-demo" } })).body;
  const nowMs = Date.now();
  const request: IngestRequest = {
    registrationId: reg.id,
    accountId: reg.account_id,
    registrationCreatedAt: nowMs,
    learningInstanceId: li.id,
    graphUuid: graph.id,
    graphVersion: graph.version,
    events: [{ kind: "graded", moduleId: "mref-b1", occurredAt: nowMs - 1000, path: "body.module_id", correct: true, goalId: goal.id }],
    goals: [{ goalId: goal.id, path: "body.goal_id" }],
    ignoreInvalidModuleIds: false,
    nowMs,
  };
  return { reg, request };
}
