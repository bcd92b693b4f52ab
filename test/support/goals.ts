import type { Schemas } from "../../client";
import { createAccount, createInstance, type Json, newPartner, type Partner, register } from "./api";
import { api } from "./typed-api";

export type GoalInput = Schemas["ScopedGoalRequest"];

/** A minimal valid goal body on the demo graph (gref-demo), overridable field by field. */
export function goalBody(overrides: Partial<GoalInput> = {}): GoalInput {
  return { name: "Week 3 homework", adaptive_behavior: "practice", targets: { include: ["lref-c"] }, ...overrides };
}

export const goalsPath = (liId: string) => `/v0/learning-instances/${liId}/scoped-goals`;
export const goalPath = (liId: string, goalId: string) => `${goalsPath(liId)}/${goalId}`;
export const assignmentPath = (liId: string, goalId: string, regId?: string) => `${goalPath(liId, goalId)}/registrations${regId ? `/${regId}` : ""}`;

export async function postGoal(p: Partner | string, liId: string, body: GoalInput) {
  return api("POST", "/v0/learning-instances/{id}/scoped-goals", { token: typeof p === "string" ? p : p.adminToken, body, path: { id: liId } });
}

/** Creates a goal as the partner admin (its standing token unless `token` is given); returns the 201 body. */
export async function createGoal(p: Partner, liId: string, body: GoalInput = goalBody(), token = p.adminToken) {
  const res = await postGoal(token, liId, body);
  if (res.status !== 201) throw new Error(`create goal: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Assigns the goal to the registration as the partner admin (its standing token unless `token` is given). */
export async function assignGoal(p: Partner, liId: string, goalId: string, regId: string, token = p.adminToken): Promise<void> {
  const res = await api("PUT", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}", {
    token,
    path: { id: liId, goal_id: goalId, registration_id: regId },
  });
  if (res.status !== 200) throw new Error(`assign goal: ${res.status} ${JSON.stringify(res.body)}`);
}

/** The goal's resolved scope (GET ?resolved_scope=true). */
export async function resolvedScope(p: Partner, liId: string, goalId: string) {
  const res = await api("GET", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", {
    token: p.adminToken,
    path: { id: liId, goal_id: goalId },
    query: { resolved_scope: "true" },
  });
  if (res.status !== 200) throw new Error(`get goal: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.resolved_scope!;
}

/** A partner with one instance on the demo graph: two learners and an instructor (each with a token). */
export interface GoalWorld {
  p: Partner;
  li: Json;
  learners: Json[];
  instructor: Json;
  instructorToken: string;
  learnerToken: string;
}

export async function goalWorld(p?: Partner): Promise<GoalWorld> {
  const partner = p ?? (await newPartner("Goals partner"));
  const li = await createInstance(partner);
  const [a1, a2, a3] = await Promise.all([createAccount(partner), createAccount(partner), createAccount(partner)]);
  // One after another, so creation order (which the listings promise) is the order here.
  const r1 = await register(partner, a1!.id, li.id, "learner");
  const r2 = await register(partner, a2!.id, li.id, "learner");
  const r3 = await register(partner, a3!.id, li.id, "instructor");
  const [instructorToken, learnerToken] = await Promise.all([partner.tokenFor(a3!.external_user_id), partner.tokenFor(a1!.external_user_id)]);
  return { p: partner, li, learners: [r1, r2], instructor: r3, instructorToken, learnerToken };
}
