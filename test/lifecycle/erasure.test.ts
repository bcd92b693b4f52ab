import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { Schemas } from "../../client";
import { PROJECTION_VERSION, type ProjectionMessage } from "../../src/analytics";
import { openDb } from "../../src/db/client";
import { accountProjections, accounts, appliedModelUpdates, deadLetters, erasedRegistrations, itemParams } from "../../src/db/schema";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { registrationDigest } from "../../src/services/erasure/fence";
import { createAccount, createInstance, freshAdminToken, type Json, newPartner, type Partner, register, tokenRequest } from "../support/api";
import { assignGoal, createGoal } from "../support/goals";
import { completedReceipt, graded, receipt, requestAccountErasure, requestInstanceErasure } from "../support/lifecycle";
import { d1Tables, scanD1, scanObjects } from "../support/storage-scan";
import { api } from "../support/typed-api";

/**
 * docs/privacy.md "Erasure": an account with several registrations that have events, tutor state,
 * projections, queued messages and a dead letter is erased; then every D1 table and every Durable
 * Object's storage is read whole, and none of the account's ids or its external_user_id is found
 * (the tombstone, the receipt and the record of the request name the account id: they are the proof
 * of the erasure).
 */

const db = () => openDb(env.DB);

interface World {
  p: Partner;
  student: Json;
  studentToken: string;
  regs: Json[];
  graphUuid: string;
  /** an xAPI statement id the account's registration received */
  statementId: string;
  erasureId: string;
  receipt: Json;
}

/** Everything a learner leaves behind, in every store. */
async function richLearner(): Promise<Omit<World, "erasureId" | "receipt">> {
  const p = await newPartner("Erasure partner");
  const [li1, li2, li3] = [await createInstance(p), await createInstance(p), await createInstance(p)];
  const student = await createAccount(p);
  const regs = [
    await register(p, student.id, li1.id, "learner"),
    await register(p, student.id, li2.id, "learner"),
    await register(p, student.id, li3.id, "instructor"),
  ];
  const studentToken = await p.tokenFor(student.external_user_id);
  const graphUuid = (await api("GET", "/v0/graphs/{graph_id}", { token: p.adminToken, path: { graph_id: "gref-demo" } })).body.id as string;
  for (const [i, li] of [li1, li2].entries()) {
    const goal = await createGoal(p, li.id);
    await assignGoal(p, li.id, goal.id, regs[i]!.id);
    // the learner's own token (its windows) and the admin's (the path names the registration)
    const events = Array.from({ length: 20 }, (_, k) => ({
      type: "graded-events" as const,
      ...graded(k % 2 ? "mref-a1" : "mref-b1", k % 3 !== 0, 40 - k),
    })).reverse();
    const batch = await api("POST", "/v0/registrations/{id}/batch-events", {
      token: i === 0 ? studentToken : p.adminToken,
      body: { events },
      headers: { "Idempotency-Key": `key-${regs[i]!.id}` },
      path: { id: regs[i]!.id },
    });
    expect(batch.status).toBe(204);
    // tutor state and a stored recommendation
    expect(
      (await api("GET", "/v0/registrations/{id}/recommendation", { token: p.adminToken, path: { id: regs[i]!.id }, query: { goal_id: goal.id } })).status,
    ).toBe(200);
  }
  // an xAPI statement: its id is claimed partner-wide in D1 and recorded in the registration's object
  const statement: Schemas["XapiStatement"] = {
    id: crypto.randomUUID(),
    actor: { objectType: "Agent", account: { homePage: "https://lms.example.edu", name: student.external_user_id } },
    verb: { id: "http://adlnet.gov/expapi/verbs/answered" },
    object: { objectType: "Activity", id: "https://lms.example.edu/activities/mref-c1" },
    result: { success: true },
    context: { registration: regs[1]!.id },
    timestamp: new Date(Date.now() - 30_000).toISOString(),
  };
  const xapi = await api("POST", "/v0/xapi/statements", { token: p.adminToken, body: statement, headers: { "X-Experience-API-Version": "1.0.3" } });
  expect(xapi.status).toBe(200);
  // the projections queue merged the account's beliefs; the model-updates consumer recorded its messages
  await vi.waitFor(
    async () => {
      expect(await db().select().from(accountProjections).where(eq(accountProjections.accountId, student.id)).get()).toBeDefined();
      const marks = await db().select().from(appliedModelUpdates).all();
      expect(marks.some((m) => m.messageId.startsWith(`${regs[0]!.id}:`))).toBe(true);
    },
    { timeout: 20_000, interval: 250 },
  );
  // a dead letter naming a registration
  await worker.queue(
    createMessageBatch("pathwise-projections-dlq", [
      { id: `dl-${crypto.randomUUID()}`, timestamp: new Date(), attempts: 6, body: projectionOf(student.id, graphUuid, regs[1]!.id) },
    ]),
    env as Env,
  );
  expect((await db().select().from(deadLetters).all()).some((d) => d.body.includes(regs[1]!.id))).toBe(true);
  return { p, student, studentToken, regs, graphUuid, statementId: statement.id! };
}

function projectionOf(accountId: string, graphId: string, registrationId: string, seq = 999): ProjectionMessage {
  return {
    version: PROJECTION_VERSION,
    accountId,
    graphId,
    registrationId,
    registrationCreatedAt: 1,
    seq,
    lastActivity: Date.now(),
    global: [0.2, 0.5, 3, Date.now()],
    objectives: { "lref-a": [0.3, 0.4, 3, Date.now()] },
    answered: { "lref-a": [42] },
  };
}

const modelUpdateOf = (registrationId: string, graphUuid: string, n: number) => ({
  id: `${registrationId}:${n}`,
  graphUuid,
  observations: [{ module: "mref-c1", objectives: ["lref-c"], correct: true, predicted: 0.5 }],
});

const observationsOf = async (graphUuid: string, module: string) =>
  (await db().select().from(itemParams).where(eq(itemParams.graphId, graphUuid)).all()).find((r) => r.module === module)?.observations ?? 0;

describe("erasure of an account with several registrations", () => {
  let w: World;
  beforeAll(async () => {
    const world = await richLearner();
    // messages in flight when the erasure starts: a projection and a model update of its registrations
    await env.PROJECTIONS.send(projectionOf(world.student.id, world.graphUuid, world.regs[0]!.id, 5000));
    await env.MODEL_UPDATES.send(modelUpdateOf(world.regs[1]!.id, world.graphUuid, 5000));
    const res = await requestAccountErasure(world.p, world.student.id);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ erasure_id: expect.any(String), status: "pending" });
    expect(res.headers.get("Location")).toBe(`/v0/erasures/${res.body.erasure_id}`);
    w = { ...world, erasureId: res.body.erasure_id, receipt: await completedReceipt(world.p, res.body.erasure_id) };
  }, 60_000);

  it("the receipt says what was removed from each store", () => {
    expect(w.receipt).toMatchObject({ erasure_id: w.erasureId, account_id: w.student.id, status: "complete", completed_at: expect.any(String) });
    const removed = w.receipt.removed as Record<string, number>;
    expect(removed).toMatchObject({
      registrations: 3,
      registration_objects: 3,
      goal_assignments: 2,
      events: 41,
      idempotency_records: 2,
      refresh_tokens: 1,
      xapi_statements: 1,
      xapi_statement_records: 1,
    });
    expect(removed.access_tokens).toBeGreaterThanOrEqual(1);
    expect(removed.token_gates).toBeGreaterThanOrEqual(1);
    expect(removed.rate_limit_windows).toBeGreaterThanOrEqual(1);
    expect(removed.account_projections).toBeGreaterThanOrEqual(1);
    expect(removed.applied_model_updates).toBeGreaterThanOrEqual(1);
    expect(removed.dead_letters).toBeGreaterThanOrEqual(1);
    expect(removed.object_values).toBeGreaterThan(0);
    expect(Date.parse(w.receipt.completed_at)).toBeGreaterThanOrEqual(Date.parse(w.receipt.requested_at));
  });

  it("queued messages naming an erased registration are dropped by their consumers, also after completion", async () => {
    const before = await observationsOf(w.graphUuid, "mref-c1");
    const late = modelUpdateOf(w.regs[0]!.id, w.graphUuid, 7000);
    const direct = createMessageBatch("pathwise-model-updates", [{ id: "late-update", timestamp: new Date(), attempts: 1, body: late }]);
    await worker.queue(direct, env as Env);
    expect((await getQueueResult(direct, createExecutionContext())).explicitAcks).toEqual(["late-update"]);
    const projection = createMessageBatch("pathwise-projections", [
      { id: "late-projection", timestamp: new Date(), attempts: 1, body: projectionOf(w.student.id, w.graphUuid, w.regs[2]!.id, 7001) },
    ]);
    await worker.queue(projection, env as Env);
    expect((await getQueueResult(projection, createExecutionContext())).explicitAcks).toEqual(["late-projection"]);
    const dead = createMessageBatch("pathwise-model-updates-dlq", [{ id: "late-dead", timestamp: new Date(), attempts: 6, body: late }]);
    await worker.queue(dead, env as Env);
    // and through the real queues
    await env.PROJECTIONS.send(projectionOf(w.student.id, w.graphUuid, w.regs[0]!.id, 7002));
    await env.MODEL_UPDATES.send(modelUpdateOf(w.regs[1]!.id, w.graphUuid, 7003));
    await new Promise((r) => setTimeout(r, 2500));
    expect(await observationsOf(w.graphUuid, "mref-c1")).toBe(before);
    expect(await db().select().from(accountProjections).where(eq(accountProjections.accountId, w.student.id)).all()).toEqual([]);
    const digests = await Promise.all(w.regs.map((r) => registrationDigest(r.id)));
    const kept = await db().select().from(erasedRegistrations).all();
    for (const d of digests) expect(kept.map((k) => k.digest)).toContain(d);
  });

  it("no D1 table and no Durable Object's storage holds its ids or its external_user_id (tombstone, receipt and record aside)", async () => {
    const ids = [w.student.id, ...w.regs.map((r) => r.id)];
    const needles = [...ids, w.student.external_user_id, w.statementId];
    const tables = await d1Tables();
    for (const t of [
      "accounts",
      "registrations",
      "goal_assignments",
      "account_projections",
      "access_tokens",
      "refresh_tokens",
      "dead_letters",
      "applied_model_updates",
      "xapi_statements",
    ]) {
      expect(tables).toContain(t);
    }
    const inD1 = await scanD1(needles);
    // the account id remains in its tombstone, the receipt and the record of the request: nothing else
    const allowed = new Set(["accounts", "erasures", "data_requests"]);
    expect(inD1.filter((f) => !(f.needle === w.student.id && allowed.has(f.where)))).toEqual([]);
    expect(inD1.map((f) => f.where).sort()).toEqual(["accounts", "data_requests", "erasures"]);
    const tombstone = await db().select().from(accounts).where(eq(accounts.id, w.student.id)).get();
    expect(tombstone).toMatchObject({ entitlements: null, erasedAt: expect.any(Number), disabledAt: expect.any(Number) });
    expect(tombstone?.externalUserId.startsWith(String.fromCharCode(1))).toBe(true);
    expect(tombstone?.externalUserId.slice(1)).toMatch(/^erased:[0-9a-f]{64}$/);

    const { findings, objects } = await scanObjects(needles);
    expect(objects).toBeGreaterThan(3);
    expect(findings).toEqual([]);
  }, 60_000);

  it("afterwards every request naming the account or its registrations answers 404", async () => {
    const token = await freshAdminToken(w.p);
    const account = { account_id: w.student.id };
    expect((await api("GET", "/v0/accounts/{account_id}", { token, path: account })).status).toBe(404);
    expect((await api("DELETE", "/v0/accounts/{account_id}", { token, path: account })).status).toBe(404);
    expect((await api("GET", "/v0/accounts/{account_id}/export", { token, path: account })).status).toBe(404);
    for (const reg of w.regs) {
      expect((await api("GET", "/v0/registrations/{reg_id}", { token, path: { reg_id: reg.id } })).status).toBe(404);
      expect((await api("POST", "/v0/registrations/{id}/graded-events", { token, body: graded("mref-a1", true), path: { id: reg.id } })).status).toBe(404);
      expect(
        (
          await api("POST", "/v0/registrations/{id}/metrics/active-time/rows", {
            token,
            body: { start_date: "2026-11-20", end_date: "2026-11-25" },
            path: { id: reg.id },
          })
        ).status,
      ).toBe(404);
    }
    const score = await api("POST", "/v0/accounts/metrics/predicted-score", {
      token,
      body: {
        account_ids: [w.student.id],
        graph_ids: ["gref-demo"],
        grouped_learning_objectives: [{ group_id: "g", learning_objectives: [{ learning_objective_id: "lref-a" }] }],
        confidence_levels: [50],
      },
    });
    expect(score.status).toBe(404);
    // no new registration for it; its token is dead; its external_user_id is never given again
    const li = await createInstance(w.p);
    const reg = await api("POST", "/v0/registrations", { token, body: { account_id: w.student.id, learning_instance_id: li.id, type: "learner" } });
    expect(reg.status).toBe(422);
    expect((await api("GET", "/v0/accounts/current", { token: w.studentToken })).status).toBe(401);
    const again = await api("POST", "/v0/accounts", { token, body: { external_user_id: w.student.external_user_id } });
    expect(again.status).toBe(422);
    const scoped = await tokenRequest(w.p.client_id, w.p.client_secret, { grant_type: "client_credentials", scope: w.student.external_user_id });
    expect(scoped.status).toBe(400);
  });

  it("repeating the request returns the same erasure; the record of data requests lists it", async () => {
    const again = await requestAccountErasure(w.p, w.student.id);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ erasure_id: w.erasureId, status: "complete" });
    expect((await receipt(w.p, w.erasureId)).body).toEqual(w.receipt);
    const records = await api("GET", "/v0/data-requests", { token: await freshAdminToken(w.p), query: { subject_id: w.student.id } });
    expect(records.status).toBe(200);
    expect(records.body).toEqual([
      expect.objectContaining({
        type: "erasure",
        subject: { type: "account", id: w.student.id },
        requested_by: { account_id: w.p.admin_account_id, request_id: expect.any(String) },
        outcome: "complete",
        erasure_id: w.erasureId,
        completed_at: expect.any(String),
      }),
    ]);
  });
});

describe("a receipt names every store, 0 where nothing was removed", () => {
  const STORES = [
    "registrations",
    "goal_assignments",
    "account_projections",
    "access_tokens",
    "refresh_tokens",
    "applied_model_updates",
    "xapi_statements",
    "dead_letters",
    "goals",
    "token_gates",
    "rate_limit_windows",
    "registration_objects",
    "events",
    "idempotency_records",
    "outbox_messages",
    "xapi_statement_records",
    "object_values",
  ];
  const zeros = (except: Record<string, number>) => ({ ...Object.fromEntries(STORES.map((s) => [s, 0])), ...except });

  it("an account that never had a token nor an event: token_gates and rate_limit_windows 0 too", async () => {
    const p = await newPartner("Erasure receipt partner");
    const student = await createAccount(p);
    await register(p, student.id, (await createInstance(p)).id, "learner");
    const res = await requestAccountErasure(p, student.id);
    expect(res.status).toBe(202);
    const done = await completedReceipt(p, res.body.erasure_id);
    expect(done.removed).toEqual(zeros({ registrations: 1, registration_objects: 1, object_values: expect.any(Number) }));
  });

  it("an instance without registrations", async () => {
    const p = await newPartner("Erasure receipt partner");
    const res = await requestInstanceErasure(p, (await createInstance(p)).id);
    expect(res.status).toBe(202);
    expect((await completedReceipt(p, res.body.erasure_id)).removed).toEqual(zeros({}));
  });
});
