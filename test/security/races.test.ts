import { env } from "cloudflare:test";
import { and, eq, isNull } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Schemas } from "../../client";
import { openDb } from "../../src/db/client";
import { goals, registrations } from "../../src/db/schema";
import { createAccount, createInstance, freshAdminToken, type Json, newPartner, type Partner, register } from "../support/api";
import { fetchWith } from "../support/app";
import { interceptD1 } from "../support/d1-intercept";
import type { ApiResponse } from "../support/raw-call";
import { eventCount } from "../support/registration-object";
import { api } from "../support/typed-api";

/**
 * docs/security.md "Controls" (races with a delete, retries): a learning instance being deleted accepts no
 * new registrations or goals, even concurrently; an Idempotency-Key retry gets the first outcome
 * before anything is validated again against current data.
 */

const db = () => openDb(env.DB);
let p: Partner;
beforeAll(async () => {
  p = await newPartner("Races");
});

const liveRowsIn = async (liId: string) => ({
  registrations: await db()
    .select({ id: registrations.id })
    .from(registrations)
    .where(and(eq(registrations.learningInstanceId, liId), isNull(registrations.deletedAt)))
    .all(),
  goals: await db()
    .select({ id: goals.id })
    .from(goals)
    .where(and(eq(goals.learningInstanceId, liId), isNull(goals.deletedAt)))
    .all(),
});

/** A create request racing the instance's delete, and its answer. */
type Outcome = { kind: string; r: ApiResponse };

const goalBody: Schemas["ScopedGoalRequest"] = {
  name: "Goal",
  adaptive_behavior: "practice",
  targets: { include: ["lref-a"] },
  config: { assign_to: "learners" },
};

describe("create racing a learning-instance delete", () => {
  /**
   * Deterministic interleaving: the DELETE of the instance runs (to its 204) right before the
   * create's first write reaches D1, i.e. after the create has read the instance as live.
   */
  async function createWithDeleteFirst(path: string, body: unknown, liId: string, table: "registrations" | "goals") {
    let deleted: Response | undefined;
    const racingDb = interceptD1(env.DB, {
      async before(sql) {
        if (!deleted && new RegExp(`^insert into "${table}"`, "i").test(sql)) {
          deleted = await fetchWith({}, `/v0/learning-instances/${liId}`, {
            method: "DELETE",
            headers: { Authorization: `Bearer ${await freshAdminToken(p)}` },
          });
        }
      },
    });
    const res = await fetchWith({ DB: racingDb }, path, {
      method: "POST",
      headers: { Authorization: `Bearer ${await freshAdminToken(p)}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(deleted?.status, "the DELETE ran inside the create").toBe(204);
    return res;
  }

  it("a registration created after the instance was read as live, but written after its delete: 404, nothing visible", async () => {
    const li = await createInstance(p);
    const account = await createAccount(p);
    const res = await createWithDeleteFirst(
      "/v0/registrations",
      { account_id: account.id, learning_instance_id: li.id, type: "learner" },
      li.id,
      "registrations",
    );
    expect(res.status, await res.clone().text()).toBe(404);
    expect(await liveRowsIn(li.id)).toEqual({ registrations: [], goals: [] });
  });

  it("a goal (with assign_to) written after the delete: 404, no goal, no assignment", async () => {
    const li = await createInstance(p);
    await register(p, (await createAccount(p)).id, li.id, "learner");
    const res = await createWithDeleteFirst(`/v0/learning-instances/${li.id}/scoped-goals`, goalBody, li.id, "goals");
    expect(res.status, await res.clone().text()).toBe(404);
    expect(await liveRowsIn(li.id)).toEqual({ registrations: [], goals: [] });
  });

  it("concurrently: after the DELETE's 204 nothing created in the instance is visible (5 rounds)", async () => {
    const accounts = await Promise.all(Array.from({ length: 8 }, () => createAccount(p)));
    const leaks: string[] = [];
    for (let round = 0; round < 5; round++) {
      const li = await createInstance(p);
      await register(p, accounts[0]!.id, li.id, "learner");
      const tokens = await Promise.all(Array.from({ length: 13 }, () => freshAdminToken(p)));
      const creates = accounts
        .slice(1)
        .map((a, i) =>
          api("POST", "/v0/registrations", { token: tokens[i], body: { account_id: a.id, learning_instance_id: li.id, type: "learner" } }).then(
            (r): Outcome => ({
              kind: "registration",
              r,
            }),
          ),
        )
        .concat(
          [0, 1, 2, 3].map((i) =>
            api("POST", "/v0/learning-instances/{id}/scoped-goals", { token: tokens[8 + i]!, body: goalBody, path: { id: li.id } }).then(
              (r): Outcome => ({ kind: "goal", r }),
            ),
          ),
        );
      // the delete starts while the creates are in flight
      const del = new Promise((r) => setTimeout(r, round)).then(() => api("DELETE", "/v0/learning-instances/{id}", { token: tokens[12], path: { id: li.id } }));
      const results = await Promise.all([...creates, del]);
      expect((await del).status).toBe(204);
      for (const { kind, r } of results.slice(0, -1) as { kind: string; r: Json }[]) {
        expect([201, 404], `${kind}: ${r.status} ${JSON.stringify(r.body)}`).toContain(r.status);
        if (r.status !== 201) continue;
        const token = await freshAdminToken(p);
        const after =
          kind === "goal"
            ? await api("GET", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token, path: { id: li.id, goal_id: r.body.id } })
            : await api("GET", "/v0/registrations/{reg_id}", { token, path: { reg_id: r.body.id } });
        if (after.status !== 404) leaks.push(`round ${round}: ${kind} ${r.body.id} answers ${after.status} after the delete`);
      }
      const live = await liveRowsIn(li.id);
      if (live.registrations.length || live.goals.length) leaks.push(`round ${round}: live rows ${JSON.stringify(live)}`);
    }
    expect(leaks).toEqual([]);
  });
});

describe("an Idempotency-Key retry answers the first outcome before validating again", () => {
  it("a graded event with a goal_id: 204, the goal deleted, the identical retry still 204 and stores nothing", async () => {
    const li = await createInstance(p);
    const reg = await register(p, (await createAccount(p)).id, li.id, "learner");
    const goal = await api("POST", "/v0/learning-instances/{id}/scoped-goals", {
      token: p.adminToken,
      body: { name: "Goal", adaptive_behavior: "practice", targets: { include: ["lref-a"] } },
      path: { id: li.id },
    });
    expect(goal.status).toBe(201);
    const request = {
      token: await freshAdminToken(p),
      headers: { "Idempotency-Key": `k-${crypto.randomUUID()}` },
      body: { module_id: "mref-a1", interaction_end_time: new Date(Date.now() - 60_000).toISOString(), is_correct: true, goal_id: goal.body.id },
    };
    const first = await api("POST", "/v0/registrations/{id}/graded-events", { ...request, path: { id: reg.id } });
    expect(first.status, JSON.stringify(first.body)).toBe(204);
    expect(await eventCount(reg.id)).toBe(1);
    expect(
      (await api("DELETE", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token: p.adminToken, path: { id: li.id, goal_id: goal.body.id } })).status,
    ).toBe(204);

    const retry = await api("POST", "/v0/registrations/{id}/graded-events", { ...request, path: { id: reg.id } });
    expect(retry.status, JSON.stringify(retry.body)).toBe(204);
    expect(await eventCount(reg.id)).toBe(1);
    // without the key, the same event is validated against current data: the goal is gone
    const fresh = await api("POST", "/v0/registrations/{id}/graded-events", { ...request, headers: {}, path: { id: reg.id } });
    expect(fresh.status).toBe(422);
    // the same for a batch with a focus goal
    const batchKey = { "Idempotency-Key": `b-${crypto.randomUUID()}` };
    const goal2 = await api("POST", "/v0/learning-instances/{id}/scoped-goals", {
      token: p.adminToken,
      body: { name: "Goal 2", adaptive_behavior: "practice", targets: { include: ["lref-b"] } },
      path: { id: li.id },
    });
    const batch = {
      goal_id: goal2.body.id,
      events: [{ type: "graded-events" as const, module_id: "mref-b1", interaction_end_time: request.body.interaction_end_time, is_correct: false }],
    };
    expect(
      (await api("POST", "/v0/registrations/{id}/batch-events", { token: await freshAdminToken(p), headers: batchKey, body: batch, path: { id: reg.id } }))
        .status,
    ).toBe(204);
    await api("DELETE", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token: p.adminToken, path: { id: li.id, goal_id: goal2.body.id } });
    expect(
      (await api("POST", "/v0/registrations/{id}/batch-events", { token: await freshAdminToken(p), headers: batchKey, body: batch, path: { id: reg.id } }))
        .status,
    ).toBe(204);
    expect(await eventCount(reg.id)).toBe(3); // event, focus, event
  });
});
