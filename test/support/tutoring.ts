import { createAccount, createInstance, freshAdminToken, type Json, newPartner, type Partner, register } from "./api";
import { assignGoal, createGoal, type GoalInput } from "./goals";
import { api } from "./typed-api";

/** A learner in an instance on the demo graph (lref-a <- lref-b <- lref-c, lref-a <- lref-d) with one goal assigned. */
export interface TutoringWorld {
  p: Partner;
  li: Json;
  reg: Json;
  goalId: string;
}

export async function tutoringWorld(
  goal: GoalInput = { name: "Reach C", adaptive_behavior: "practice", targets: { include: ["lref-c"] } },
  p?: Partner,
): Promise<TutoringWorld> {
  const partner = p ?? (await newPartner("Tutoring partner"));
  const li = await createInstance(partner);
  const reg = await register(partner, (await createAccount(partner)).id, li.id, "learner");
  const created = await createGoal(partner, li.id, goal);
  await assignGoal(partner, li.id, created.id, reg.id);
  return { p: partner, li, reg, goalId: created.id };
}

type RecommendationFlags = { justifications?: "true" | "false"; continued_recommendations?: "true" | "false" };

/** GET the registration's recommendation for the goal (the world's unless given), with the given flags. */
export async function recommendation(w: TutoringWorld, flags: RecommendationFlags = {}, goalId = w.goalId) {
  return api("GET", "/v0/registrations/{id}/recommendation", {
    token: await freshAdminToken(w.p),
    path: { id: w.reg.id },
    query: { goal_id: goalId, ...flags },
  });
}

let clock = Date.now() - 6 * 3600_000;
/** An answer on a module, one minute after the previous one (all in the past). */
export async function answer(w: TutoringWorld, moduleId: string, correct: boolean): Promise<void> {
  clock += 60_000;
  const res = await api("POST", "/v0/registrations/{id}/graded-events", {
    token: await freshAdminToken(w.p),
    body: { module_id: moduleId, interaction_end_time: new Date(Math.min(clock, Date.now())).toISOString(), is_correct: correct },
    path: { id: w.reg.id },
  });
  if (res.status !== 204) throw new Error(`answer: ${res.status} ${JSON.stringify(res.body)}`);
}

/** Many answers in one batch (most recent first, as the API wants), ending a minute ago. */
export async function answers(w: TutoringWorld, list: [moduleId: string, correct: boolean][]): Promise<void> {
  const now = Date.now() - 60_000;
  const events = list.map(([module_id, is_correct], i) => ({
    type: "graded-events" as const,
    module_id,
    is_correct,
    interaction_end_time: new Date(now - (list.length - i) * 30_000).toISOString(),
  }));
  const res = await api("POST", "/v0/registrations/{id}/batch-events", {
    token: await freshAdminToken(w.p),
    body: { events: events.reverse() },
    path: { id: w.reg.id },
  });
  if (res.status !== 204) throw new Error(`batch: ${res.status} ${JSON.stringify(res.body)}`);
}
