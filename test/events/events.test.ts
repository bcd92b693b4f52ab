import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { signAccessToken } from "../../src/auth/access-token";
import { MODEL_STATE_ID } from "../../src/objects/registration/model-state-store";
import { createAccount, createInstance, type Json, newPartner, type Partner, register } from "../support/api";
import { rawCall } from "../support/raw-call";
import { eventCount, focusOf, learnerState, modelState, registrationObject, replayedModelState, replayedState } from "../support/registration-object";
import { api } from "../support/typed-api";

interface Fixture {
  p: Partner;
  li: Json;
  reg: Json;
  ownerToken: string;
  otherLearnerToken: string;
  instructorToken: string;
  goalId: string;
}

async function fixture(): Promise<Fixture> {
  const p = await newPartner();
  const li = await createInstance(p);
  const owner = await createAccount(p);
  const other = await createAccount(p);
  const instructor = await createAccount(p);
  const reg = await register(p, owner.id, li.id, "learner");
  await register(p, other.id, li.id, "learner");
  await register(p, instructor.id, li.id, "instructor");
  const goal = await api("POST", "/v0/learning-instances/{id}/scoped-goals", {
    token: p.adminToken,
    body: { name: "Week 1", adaptive_behavior: "practice", targets: { include: ["lref-c"] } },
    path: { id: li.id },
  });
  expect(goal.status).toBe(201);
  return {
    p,
    li,
    reg,
    ownerToken: await p.tokenFor(owner.external_user_id),
    otherLearnerToken: await p.tokenFor(other.external_user_id),
    instructorToken: await p.tokenFor(instructor.external_user_id),
    goalId: goal.body.id,
  };
}

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

/** A valid admin token of the partner minted directly (each token has its own rate-limit windows). */
async function extraAdminToken(p: Partner): Promise<string> {
  return signAccessToken(
    { jti: crypto.randomUUID(), partner_id: p.partner_id, account_id: p.admin_account_id, admin: true, exp: Math.floor(Date.now() / 1000) + 600 },
    env.TOKEN_SIGNING_KEY,
  );
}

describe("student events", () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture();
  });

  it("accepts graded and ungraded events on atoms (uuid or mref label) with 204 and updates the learner state", async () => {
    const graph = await api("GET", "/v0/graphs/{graph_id}", { token: f.p.adminToken, path: { graph_id: "gref-demo" } });
    const a1 = graph.body.modules.find((m: Json) => m.id === "mref-a1");
    const before = await eventCount(f.reg.id);
    const graded = await api("POST", "/v0/registrations/{id}/graded-events", {
      token: f.ownerToken,
      body: { module_id: a1!.uuid, interaction_end_time: minutesAgo(3), is_correct: true, is_complete: true, duration: 30_000 },
      path: { id: f.reg.id },
    });
    expect(graded.status).toBe(204);
    expect(graded.body).toBeNull();
    const ungraded = await api("POST", "/v0/registrations/{id}/ungraded-events", {
      token: f.p.adminToken,
      body: { module_id: "mref-b3", interaction_end_time: minutesAgo(2), is_complete: true },
      path: { id: f.reg.id },
    });
    expect(ungraded.status).toBe(204);
    expect(await eventCount(f.reg.id)).toBe(before + 2);
    const state = await learnerState(f.reg.id);
    expect(state.objectives["lref-a"]?.n).toBeGreaterThanOrEqual(1);
    expect(state.objectives["lref-a"]?.mu).toBeGreaterThan(0);
    expect(state.objectives["lref-b"]?.u).toBeGreaterThanOrEqual(1);
  });

  it("refuses unknown modules and bundles with 422 naming them, storing nothing", async () => {
    const before = await eventCount(f.reg.id);
    const unknown = await api("POST", "/v0/registrations/{id}/graded-events", {
      token: f.ownerToken,
      body: { module_id: "mref-nope", interaction_end_time: minutesAgo(1), is_correct: false },
      path: { id: f.reg.id },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.error.details).toEqual([{ path: "body.module_id", message: expect.stringContaining("mref-nope") }]);
    const bundle = await api("POST", "/v0/registrations/{id}/ungraded-events", {
      token: f.ownerToken,
      body: { module_id: "mref-set-a", interaction_end_time: minutesAgo(1) },
      path: { id: f.reg.id },
    });
    expect(bundle.status).toBe(422);
    expect(bundle.error.details![0]!.message).toContain("bundle");
    expect(await eventCount(f.reg.id)).toBe(before);
  });

  it("validates types, ranges and future timestamps with 400", async () => {
    const url = `/v0/registrations/${f.reg.id}/graded-events`;
    const future = await rawCall("POST", url, {
      token: f.p.adminToken,
      body: { module_id: "mref-a1", interaction_end_time: new Date(Date.now() + 10 * 60_000).toISOString(), is_correct: true },
    });
    expect(future.status).toBe(400);
    expect(future.body.details[0].path).toBe("body.interaction_end_time");
    const missing = await rawCall("POST", url, { token: f.p.adminToken, body: { module_id: "mref-a1", interaction_end_time: minutesAgo(1) } });
    expect(missing.status).toBe(400);
    expect(missing.body.details.map((d: Json) => d.path)).toContain("body.is_correct");
    const badTime = await rawCall("POST", url, { token: f.p.adminToken, body: { module_id: "mref-a1", interaction_end_time: "yesterday", is_correct: true } });
    expect(badTime.status).toBe(400);
    const negative = await rawCall("POST", url, {
      token: f.p.adminToken,
      body: { module_id: "mref-a1", interaction_end_time: minutesAgo(1), is_correct: true, duration: -5 },
    });
    expect(negative.status).toBe(400);
    const badPath = await rawCall("POST", "/v0/registrations/not-a-uuid/graded-events", { token: f.p.adminToken, body: {} });
    expect(badPath.status).toBe(400);
  });

  it("applies caller rules: admin or owner; other learners and instructors 403; another partner 404", async () => {
    const body = { module_id: "mref-a1", interaction_end_time: minutesAgo(1), is_correct: true };
    const path = { id: f.reg.id };
    expect((await api("POST", "/v0/registrations/{id}/ungraded-events", { path, token: f.otherLearnerToken, body })).status).toBe(403);
    expect((await api("POST", "/v0/registrations/{id}/ungraded-events", { path, token: f.instructorToken, body })).status).toBe(403);
    const stranger = await newPartner("Other partner");
    expect((await api("POST", "/v0/registrations/{id}/ungraded-events", { path, token: stranger.adminToken, body })).status).toBe(404);
  });

  it("batch: most recent first, applied in time order, all or nothing", async () => {
    const path = { id: f.reg.id };
    const before = await eventCount(f.reg.id);
    const disordered = await api("POST", "/v0/registrations/{id}/batch-events", {
      path,
      token: f.ownerToken,
      body: {
        events: [
          { type: "graded-events" as const, module_id: "mref-c1", interaction_end_time: minutesAgo(30), is_correct: true },
          { type: "graded-events" as const, module_id: "mref-c2", interaction_end_time: minutesAgo(10), is_correct: true },
        ],
      },
    });
    expect(disordered.status).toBe(400);
    const oneBad = await api("POST", "/v0/registrations/{id}/batch-events", {
      path,
      token: f.ownerToken,
      body: {
        events: [
          { type: "graded-events" as const, module_id: "mref-c1", interaction_end_time: minutesAgo(5), is_correct: true },
          { type: "ungraded-events" as const, module_id: "mref-unknown", interaction_end_time: minutesAgo(6) },
          { type: "recommendation-followed", module_id: "mref-c1", time_followed: minutesAgo(7), recommendation_id: 12 },
        ],
      },
    });
    expect(oneBad.status).toBe(422);
    expect(oneBad.error.details).toEqual([{ path: "body.events[1].module_id", message: expect.any(String) }]);
    expect(await eventCount(f.reg.id)).toBe(before);

    const ignored = await api("POST", "/v0/registrations/{id}/batch-events", {
      path,
      token: f.ownerToken,
      body: {
        ignore_invalid_module_ids: true,
        goal_id: f.goalId,
        events: [
          { type: "graded-events" as const, module_id: "mref-c1", interaction_end_time: minutesAgo(5), is_correct: true, goal_id: f.goalId },
          { type: "ungraded-events" as const, module_id: "mref-unknown", interaction_end_time: minutesAgo(6) },
          { type: "recommendation-followed", module_id: "mref-c1", time_followed: minutesAgo(7), recommendation_id: 12 },
        ],
      },
    });
    expect(ignored.status).toBe(204);
    // focus + graded + recommendation-followed; the unknown module is silently dropped
    expect(await eventCount(f.reg.id)).toBe(before + 3);
    expect(await focusOf(f.reg.id)).toBe(f.goalId);
  });

  it("batch refuses more than 500 events and unknown goals", async () => {
    const path = { id: f.reg.id };
    const t = minutesAgo(1);
    const tooMany = await api("POST", "/v0/registrations/{id}/batch-events", {
      path,
      token: f.p.adminToken,
      body: { events: Array.from({ length: 501 }, () => ({ type: "ungraded-events" as const, module_id: "mref-a3", interaction_end_time: t })) },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.error.details![0]!.path).toBe("body.events");
    const badGoal = await api("POST", "/v0/registrations/{id}/batch-events", {
      path,
      token: f.p.adminToken,
      body: { goal_id: crypto.randomUUID(), events: [{ type: "ungraded-events" as const, module_id: "mref-a3", interaction_end_time: t }] },
    });
    expect(badGoal.status).toBe(422);
    expect(badGoal.error.details![0]!.path).toBe("body.goal_id");
    const focusUnknown = await api("POST", "/v0/registrations/{id}/focus-events", {
      token: f.p.adminToken,
      body: { goal_id: crypto.randomUUID() },
      path: { id: f.reg.id },
    });
    expect(focusUnknown.status).toBe(422);
  });

  it("accepts upper-case UUIDs for the registration and the goal", async () => {
    const res = await api("POST", "/v0/registrations/{id}/batch-events", {
      token: f.ownerToken,
      body: {
        goal_id: f.goalId.toUpperCase(),
        events: [
          { type: "graded-events" as const, module_id: "mref-a2", interaction_end_time: minutesAgo(1), is_correct: true, goal_id: f.goalId.toUpperCase() },
        ],
      },
      path: { id: f.reg.id.toUpperCase() },
    });
    expect(res.status).toBe(204);
    expect(await focusOf(f.reg.id)).toBe(f.goalId);
  });

  it("an Idempotency-Key makes a retry a no-op that returns the first outcome", async () => {
    const before = await eventCount(f.reg.id);
    const request = {
      token: f.ownerToken,
      body: { module_id: "mref-d1", interaction_end_time: minutesAgo(1), is_correct: false },
      headers: { "Idempotency-Key": `retry-${crypto.randomUUID()}` },
    };
    const first = await api("POST", "/v0/registrations/{id}/graded-events", { ...request, path: { id: f.reg.id } });
    const second = await api("POST", "/v0/registrations/{id}/graded-events", { ...request, path: { id: f.reg.id } });
    expect([first.status, second.status]).toEqual([204, 204]);
    expect(await eventCount(f.reg.id)).toBe(before + 1);
  });

  it("an Idempotency-Key reused for a different request is refused with 422 and stores nothing", async () => {
    const key = `reuse-${crypto.randomUUID()}`;
    const path = { id: f.reg.id };
    const first = await api("POST", "/v0/registrations/{id}/graded-events", {
      path,
      token: f.p.adminToken,
      headers: { "Idempotency-Key": key },
      body: { module_id: "mref-a1", interaction_end_time: minutesAgo(1), is_correct: true },
    });
    expect(first.status).toBe(204);
    const before = await eventCount(f.reg.id);
    const other = await api("POST", "/v0/registrations/{id}/graded-events", {
      path,
      token: f.p.adminToken,
      headers: { "Idempotency-Key": key },
      body: { module_id: "mref-a2", interaction_end_time: minutesAgo(1), is_correct: false },
    });
    expect(other.status).toBe(422);
    expect(other.error.details).toEqual([{ path: "header.idempotency-key", message: expect.any(String) }]);
    expect(await eventCount(f.reg.id)).toBe(before);
  });

  it("concurrent retries with one Idempotency-Key store the events once", async () => {
    const fresh = await register(f.p, (await createAccount(f.p)).id, f.li.id, "learner");
    const key = `race-${crypto.randomUUID()}`;
    const body = { module_id: "mref-b2", interaction_end_time: minutesAgo(1), is_correct: true };
    const tokens = await Promise.all(Array.from({ length: 10 }, () => extraAdminToken(f.p)));
    const results = await Promise.all(
      tokens.map((token) => api("POST", "/v0/registrations/{id}/graded-events", { token, body, headers: { "Idempotency-Key": key }, path: { id: fresh.id } })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(204));
    expect(await eventCount(fresh.id)).toBe(1);
  });

  it("50 concurrent posts to one registration are all applied exactly once", async () => {
    const fresh = await register(f.p, (await createAccount(f.p)).id, f.li.id, "learner");
    const tokens = await Promise.all(Array.from({ length: 50 }, () => extraAdminToken(f.p)));
    const results = await Promise.all(
      tokens.map((token, i) =>
        api("POST", "/v0/registrations/{id}/graded-events", {
          token,
          body: { module_id: i % 2 ? "mref-b1" : "mref-c2", interaction_end_time: minutesAgo(1), is_correct: i % 3 !== 0 },
          path: { id: fresh.id },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(204));
    expect(await eventCount(fresh.id)).toBe(50);
    const state = await learnerState(fresh.id);
    expect(state.global.n).toBe(50);
    expect(state.seq).toBe(50);
  });

  it("the learner state replayed from the log equals the incrementally maintained state", async () => {
    const fresh = await register(f.p, (await createAccount(f.p)).id, f.li.id, "learner");
    const token = await extraAdminToken(f.p);
    const modules = ["mref-a1", "mref-a2", "mref-b1", "mref-b3", "mref-c1", "mref-d2", "mref-a3"];
    const events = modules.map((m, i) =>
      m.endsWith("3")
        ? { type: "ungraded-events" as const, module_id: m, interaction_end_time: minutesAgo(60 - i) }
        : { type: "graded-events" as const, module_id: m, interaction_end_time: minutesAgo(60 - i), is_correct: i % 2 === 0 },
    );
    const res = await api("POST", "/v0/registrations/{id}/batch-events", { token, body: { events: events.reverse() }, path: { id: fresh.id } });
    expect(res.status).toBe(204);
    const single = await api("POST", "/v0/registrations/{id}/graded-events", {
      token,
      body: { module_id: "mref-c2", interaction_end_time: minutesAgo(1), is_correct: false },
      path: { id: fresh.id },
    });
    expect(single.status).toBe(204);
    const incremental = await learnerState(fresh.id);
    expect(incremental.seq).toBe(8);
    expect(await replayedState(fresh.id)).toEqual(incremental);
    // the policy's tutor state too: both are a function of the log
    const model = await modelState(fresh.id);
    expect(model.tutor.seq).toBe(8);
    expect(await replayedModelState(fresh.id)).toEqual(model);
  });

  it("the learner state is stored with the id of the parameters that computed it, and is not rebuilt by a new instance", async () => {
    const fresh = await register(f.p, (await createAccount(f.p)).id, f.li.id, "learner");
    const token = await extraAdminToken(f.p);
    const post = (module: string, m: number) =>
      api("POST", "/v0/registrations/{id}/graded-events", {
        token,
        body: { module_id: module, interaction_end_time: minutesAgo(m), is_correct: true },
        path: { id: fresh.id },
      });
    expect((await post("mref-a1", 5)).status).toBe(204);
    const stub = registrationObject(fresh.id);
    const stored = () => runInDurableObject(stub, async (_instance, state) => state.storage.kv.get<string>("model_params_id"));
    expect(await stored()).toBe(MODEL_STATE_ID);
    await evictDurableObject(stub);
    expect((await post("mref-b1", 4)).status).toBe(204);
    expect(await stored()).toBe(MODEL_STATE_ID);
    // a marker the rebuild of a stale state would overwrite survives the next post: the state was not rebuilt
    const current = await learnerState(fresh.id);
    await runInDurableObject(stub, async (_instance, state) => state.storage.kv.put("learner_state", { ...current, marker: 1 }));
    await evictDurableObject(stub);
    expect((await post("mref-c1", 3)).status).toBe(204);
    expect(await runInDurableObject(stub, async (_instance, state) => state.storage.kv.get<Record<string, unknown>>("learner_state")?.marker)).toBe(1);
  });

  it("a learner state kept under other model parameters (a recalibration) is rebuilt from the log", async () => {
    const fresh = await register(f.p, (await createAccount(f.p)).id, f.li.id, "learner");
    const token = await extraAdminToken(f.p);
    const post = (module: string, correct: boolean, m: number) =>
      api("POST", "/v0/registrations/{id}/graded-events", {
        token,
        body: { module_id: module, interaction_end_time: minutesAgo(m), is_correct: correct },
        path: { id: fresh.id },
      });
    expect((await post("mref-a1", true, 5)).status).toBe(204);
    expect((await post("mref-b1", false, 4)).status).toBe(204);
    const stub = registrationObject(fresh.id);
    const expected = await replayedState(fresh.id);
    // as if the state had been computed by other parameters before a deploy
    await runInDurableObject(stub, async (_instance, state) => {
      state.storage.kv.put("model_params_id", "older-parameters");
      state.storage.kv.put("learner_state", { ...expected, seq: 999 });
    });
    // drop the in-memory copy, as a restart would
    await evictDurableObject(stub);
    expect(await learnerState(fresh.id)).toEqual(expected);
    expect((await post("mref-c1", true, 3)).status).toBe(204);
    expect(await learnerState(fresh.id)).toEqual(await replayedState(fresh.id));
  });
});
