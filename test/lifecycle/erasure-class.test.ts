import { env, runInDurableObject } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import type { Schemas } from "../../client";
import { openDb } from "../../src/db/client";
import { accountProjections, populationGraphs, populationItems, populationObjectives } from "../../src/db/schema";
import type { RegistrationObject } from "../../src/objects/registration/registration-object";
import { clearPopulationCache } from "../../src/reads/population-rates";
import { createAccount, createInstance, freshAdminToken, type Json, newPartner, type Partner, register } from "../support/api";
import { assignGoal, createGoal } from "../support/goals";
import { completedReceipt, requestAccountErasure, requestInstanceErasure } from "../support/lifecycle";
import { outboxSize, registrationObject } from "../support/registration-object";
import { scanD1, scanObjects } from "../support/storage-scan";
import { api } from "../support/typed-api";

/**
 * Erasure inside a class (docs/privacy.md "Erasure"): the class pages stop
 * listing an erased learner at once, and what the other learners and their instructors read
 * (recommendations, statuses, proficiency, the graph's population statistics) is unchanged by the
 * erasure. An instance erasure removes every registration of the class and the class's goals, keeps
 * the accounts, and rebuilds an account's analytics from its other classes.
 */

const db = () => openDb(env.DB);

/** Runs the registration's alarm until its outbox is empty (its population contribution and projections are sent). */
async function flush(id: string): Promise<void> {
  await runInDurableObject(registrationObject(id), (object: RegistrationObject) => object.alarm());
  while ((await outboxSize(id)) > 0) await runInDurableObject(registrationObject(id), (object: RegistrationObject) => object.alarm());
}

async function population(graphId: string) {
  return {
    items: await db().select().from(populationItems).where(eq(populationItems.graphId, graphId)).all(),
    objectives: await db().select().from(populationObjectives).where(eq(populationObjectives.graphId, graphId)).all(),
    version: (await db().select().from(populationGraphs).where(eq(populationGraphs.graphId, graphId)).get())?.version,
  };
}
const answersIn = (p: Awaited<ReturnType<typeof population>>) => p.items.reduce((s, r) => s + r.known + r.unknown + r.partial, 0);

const answers = (n: number, shift: number) => ({
  events: Array.from({ length: n }, (_, k) => ({
    type: "graded-events" as const,
    module_id: ["mref-a1", "mref-a2", "mref-b1", "mref-b2", "mref-c1"][(k + shift) % 5]!,
    interaction_end_time: new Date(Date.now() - 3600_000 + k * 60_000).toISOString(),
    is_correct: (k + shift) % 3 !== 0,
  })).reverse(),
});

async function post(p: Partner, regId: string, body: Schemas["BatchEvents"]): Promise<void> {
  const res = await api("POST", "/v0/registrations/{id}/batch-events", { token: await freshAdminToken(p), body, path: { id: regId } });
  expect(res.status).toBe(204);
}

/** What a learner's instructors and the partner read about one learner. */
async function readsOf(p: Partner, reg: Json, goalId: string) {
  const token = await freshAdminToken(p);
  const rec = await api("GET", "/v0/registrations/{id}/recommendation", { token, path: { id: reg.id }, query: { goal_id: goalId } });
  const status = await api("POST", "/v0/registrations/{id}/metrics/status-and-progress", { token, body: { goal_ids: [goalId] }, path: { id: reg.id } });
  const proficiency = await api("POST", "/v0/registrations/{id}/metrics/proficiency/rows", {
    token,
    body: { learning_objective_ids: ["lref-a", "lref-b", "lref-c"] },
    path: { id: reg.id },
  });
  expect([rec.status, status.status, proficiency.status]).toEqual([200, 200, 200]);
  return { recommendation: rec.body, status: status.body, proficiency: proficiency.body };
}

describe("erasure in a class", () => {
  it("an erased learner leaves the class pages at once; the classmates' recommendations, statuses, proficiency and the population statistics are unchanged", async () => {
    const p = await newPartner("Class erasure partner");
    const li = await createInstance(p);
    const goal = await createGoal(p, li.id);
    const regs: Json[] = [];
    for (let i = 0; i < 3; i++) {
      const reg = await register(p, (await createAccount(p)).id, li.id, "learner");
      await assignGoal(p, li.id, goal.id, reg.id);
      await post(p, reg.id, answers(8, i));
      await flush(reg.id);
      regs.push(reg);
    }
    const [erased, ...classmates] = regs as [Json, Json, Json];
    const graphId = (await api("GET", "/v0/graphs/{graph_id}", { token: p.adminToken, path: { graph_id: "gref-demo" } })).body.id as string;
    await vi.waitFor(async () => expect(answersIn(await population(graphId))).toBeCloseTo(24, 6), { timeout: 20_000, interval: 250 });
    clearPopulationCache();
    const before = { classmates: await Promise.all(classmates.map((r) => readsOf(p, r, goal.id))), population: await population(graphId) };

    const res = await requestAccountErasure(p, erased.account_id);
    expect(res.status).toBe(202);
    // at once, before the job ran: the class pages no longer list it
    const token = await freshAdminToken(p);
    const listed = await api("GET", "/v0/learning-instances/{li_id}/registrations", { token, path: { li_id: li.id } });
    expect(listed.body.map((r: Json) => r.id).sort()).toEqual(classmates.map((r) => r.id).sort());
    const table = await api("POST", "/v0/learning-instances/{id}/metrics/status-and-progress", { token, body: { goal_ids: [goal.id] }, path: { id: li.id } });
    expect(table.body.data.map((r: Json) => r.registration_id).sort()).toEqual(classmates.map((r) => r.id).sort());
    // the goal's assignment of the erased registration is gone; a classmate's is still there
    const assignment = (registration_id: string) =>
      api("GET", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}", {
        token,
        path: { id: li.id, goal_id: goal.id, registration_id },
      });
    expect((await assignment(erased.id)).status).toBe(404);
    expect((await assignment(classmates[0]!.id)).status).toBe(200);

    await completedReceipt(p, res.body.erasure_id);
    clearPopulationCache();
    expect({ classmates: await Promise.all(classmates.map((r) => readsOf(p, r, goal.id))), population: await population(graphId) }).toEqual(before);
  }, 60_000);

  it("an instance erasure removes its registrations, goals and their data; the accounts stay and keep their other classes", async () => {
    const p = await newPartner("Instance erasure partner");
    const [li, otherLi] = [await createInstance(p), await createInstance(p, { graph_id: "gref-demo", name: "Kept class" })];
    const goal = await createGoal(p, li.id);
    const [a, b, teacher] = [await createAccount(p), await createAccount(p), await createAccount(p)];
    const regs = [await register(p, a.id, li.id, "learner"), await register(p, b.id, li.id, "learner"), await register(p, teacher.id, li.id, "instructor")];
    const keptReg = await register(p, a.id, otherLi.id, "learner");
    for (const [i, reg] of regs.slice(0, 2).entries()) {
      await assignGoal(p, li.id, goal.id, reg.id);
      await post(p, reg.id, { goal_id: goal.id, ...answers(6, i) });
    }
    await post(p, keptReg.id, answers(4, 3));
    // the account's analytics (its projection) hold both classes' registrations
    await vi.waitFor(
      async () => {
        const row = await db().select().from(accountProjections).where(eq(accountProjections.accountId, a.id)).get();
        expect(JSON.stringify(row?.body)).toContain(regs[0]!.id);
        expect(JSON.stringify(row?.body)).toContain(keptReg.id);
      },
      { timeout: 20_000, interval: 250 },
    );

    const res = await requestInstanceErasure(p, li.id);
    expect(res.status).toBe(202);
    const token = await freshAdminToken(p);
    expect((await api("GET", "/v0/learning-instances/{id}", { token, path: { id: li.id } })).status).toBe(404);
    expect((await api("GET", "/v0/learning-instances/{li_id}/registrations", { token, path: { li_id: li.id } })).status).toBe(404);
    const receipt = await completedReceipt(p, res.body.erasure_id);
    expect(receipt).toMatchObject({ learning_instance_id: li.id, status: "complete" });
    expect(receipt.removed).toMatchObject({ registrations: 3, registration_objects: 3, goals: 1, goal_assignments: 2, events: 14 });

    for (const reg of regs) expect((await api("GET", "/v0/registrations/{reg_id}", { token, path: { reg_id: reg.id } })).status).toBe(404);
    expect((await api("GET", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token, path: { id: li.id, goal_id: goal.id } })).status).toBe(404);
    for (const account of [a, b, teacher])
      expect((await api("GET", "/v0/accounts/{account_id}", { token, path: { account_id: account.id } })).status).toBe(200);
    // the account's other class works, and its analytics are rebuilt from it alone
    await post(p, keptReg.id, answers(2, 4));
    await vi.waitFor(
      async () => {
        const row = await db().select().from(accountProjections).where(eq(accountProjections.accountId, a.id)).get();
        expect(JSON.stringify(row?.body)).toContain(keptReg.id);
      },
      { timeout: 20_000, interval: 250 },
    );
    const score = await api("POST", "/v0/accounts/metrics/predicted-score", {
      token,
      body: {
        account_ids: [a.id],
        graph_ids: ["gref-demo"],
        grouped_learning_objectives: [{ group_id: "g", learning_objectives: [{ learning_objective_id: "lref-a" }] }],
        confidence_levels: [50],
      },
    });
    expect(score.status).toBe(200);

    // nothing names the class, its registrations or its goal any more (the tombstone, receipt and record name the class)
    const needles = [li.id, goal.id, ...regs.map((r) => r.id)];
    const inD1 = await scanD1(needles);
    expect(inD1.filter((f) => !(f.needle === li.id && ["learning_instances", "erasures", "data_requests"].includes(f.where)))).toEqual([]);
    expect((await scanObjects(needles)).findings).toEqual([]);

    // repeated: the same erasure
    const again = await requestInstanceErasure(p, li.id);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ erasure_id: res.body.erasure_id, status: "complete" });
  }, 60_000);
});
