import { createExecutionContext, createMessageBatch, env, getQueueResult, runInDurableObject } from "cloudflare:test";
import { and, eq, isNull } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { Schemas } from "../../client";
import { openDb } from "../../src/db/client";
import { accessTokens, deadLetters, goalAssignments, goals, itemParams, learningInstances, registrations } from "../../src/db/schema";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import type { RegistrationObject } from "../../src/objects/registration/registration-object";
import type { ModelUpdateMessage } from "../../src/queues/messages";
import { expectErrorBody } from "../core-api/fixture";
import { createAccount, createInstance, freshAdminToken, type Json, newPartner, type Partner, register, uniqueId } from "../support/api";
import { fetchWith } from "../support/app";
import { rowCounts } from "../support/d1-counts";
import { interceptD1 } from "../support/d1-intercept";
import { demoGraph } from "../support/demo-graph";
import type { ApiResponse } from "../support/raw-call";
import { eventCount, learnerState, outboxSize, registrationObject, replayedState } from "../support/registration-object";
import { api } from "../support/typed-api";

/**
 * Fault injection inside workerd (docs/security.md "Failures"), with no test hook in production
 * code: the app is called with a wrapped env (a failing D1 or an unreachable TokenGate), a live
 * Durable Object's storage is patched through runInDurableObject, the queue handler is called
 * with message batches.
 */

const db = () => openDb(env.DB);
let p: Partner;
beforeAll(async () => {
  p = await newPartner("Faults");
});

async function asApi(res: Response): Promise<ApiResponse> {
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

describe("a RegistrationObject that throws mid-ingest", () => {
  it("stores nothing, answers a retryable 503 with error_id and Retry-After; the retry with its Idempotency-Key stores the events once", async () => {
    const li = await createInstance(p);
    const reg = await register(p, (await createAccount(p)).id, li.id, "learner");
    const first = await api("POST", "/v0/registrations/{id}/batch-events", {
      token: await freshAdminToken(p),
      path: { id: reg.id },
      body: { events: [{ type: "graded-events", module_id: "mref-a1", interaction_end_time: minutesAgo(10), is_correct: true }] },
    });
    expect(first.status).toBe(204);
    const before = { events: await eventCount(reg.id), state: await learnerState(reg.id), outbox: await outboxSize(reg.id) };

    // The next ingest fails inside the object's transaction after its event rows were written (at its idempotency record).
    await runInDurableObject(registrationObject(reg.id), (_: RegistrationObject, state) => {
      const sql = state.storage.sql;
      const exec = sql.exec.bind(sql);
      let eventsWritten = false;
      sql.exec = ((query: string, ...bindings: unknown[]) => {
        if (query.startsWith("INSERT INTO events (kind")) eventsWritten = true;
        if (query.startsWith("INSERT OR REPLACE INTO idempotency") && eventsWritten) {
          sql.exec = exec; // one failure only
          throw new Error("injected storage failure");
        }
        return exec(query, ...(bindings as SqlStorageValue[]));
      }) as typeof sql.exec;
    });
    const key = `fault-${crypto.randomUUID()}`;
    const body: Schemas["BatchEvents"] = {
      events: [
        { type: "graded-events", module_id: "mref-b2", interaction_end_time: minutesAgo(1), is_correct: false },
        { type: "ungraded-events", module_id: "mref-b3", interaction_end_time: minutesAgo(2) },
        { type: "graded-events", module_id: "mref-b1", interaction_end_time: minutesAgo(3), is_correct: true },
      ],
    };
    const batch = async () =>
      api("POST", "/v0/registrations/{id}/batch-events", { token: await freshAdminToken(p), headers: { "Idempotency-Key": key }, path: { id: reg.id }, body });
    const failed = await batch();
    expectErrorBody(failed, 503);
    expect(failed.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(JSON.stringify(failed.body)).not.toMatch(/injected|storage failure/); // no internal reason leaks
    expect(await eventCount(reg.id)).toBe(before.events);
    expect(await learnerState(reg.id)).toEqual(before.state);
    expect(await outboxSize(reg.id)).toBe(before.outbox);
    const keyStored = await runInDurableObject(
      registrationObject(reg.id),
      (_: RegistrationObject, state) => state.storage.sql.exec("SELECT COUNT(*) AS n FROM idempotency WHERE key = ?", key).one().n,
    );
    expect(keyStored).toBe(0);

    for (let i = 0; i < 2; i++) {
      const retry = await batch();
      expect(retry.status, JSON.stringify(retry.body)).toBe(204);
      expect(await eventCount(reg.id)).toBe(before.events + 3);
    }
    expect(await learnerState(reg.id)).toEqual(await replayedState(reg.id));
  });
});

describe("D1 failing during a multi-row write leaves nothing half-written", () => {
  /** Runs the request with a D1 whose first batch matching `match` fails after statement k (for each k); returns the responses. */
  async function failEachStep(
    match: RegExp,
    request: () => Promise<[string, RequestInit]>,
    check: () => Promise<void>,
  ): Promise<{ steps: number; last: ApiResponse }> {
    let steps = 0;
    let last: ApiResponse | undefined;
    for (let k = 1; ; k++) {
      let size = 0;
      const faulty = interceptD1(env.DB, {
        failBatchAt(sqls) {
          if (size > 0 || !match.test(sqls[0] ?? "")) return undefined;
          size = sqls.length;
          return k < sqls.length ? k : undefined;
        },
      });
      const counts = await rowCounts([]);
      const [path, init] = await request();
      const res = await asApi(await fetchWith({ DB: faulty }, path, init));
      last = res;
      if (k >= size) break; // no failure was injected: every position has been tried, this was the successful retry
      steps++;
      expectErrorBody(res, 500);
      expect(await rowCounts([])).toEqual(counts);
      await check();
    }
    expect(steps).toBeGreaterThan(0);
    expect(last!.status, JSON.stringify(last!.body)).toBeLessThan(300);
    return { steps, last: last! };
  }

  it("deleting a learning instance: its registrations and goals stay live, the retried DELETE finishes", async () => {
    const li = await createInstance(p);
    const reg = await register(p, (await createAccount(p)).id, li.id, "learner");
    const goal = await api("POST", "/v0/learning-instances/{id}/scoped-goals", {
      token: await freshAdminToken(p),
      body: { name: "G", adaptive_behavior: "practice", targets: { include: ["lref-a"] } },
      path: { id: li.id },
    });
    const { steps, last } = await failEachStep(
      /^update "registrations"/i,
      async () => [`/v0/learning-instances/${li.id}`, { method: "DELETE", headers: { Authorization: `Bearer ${await freshAdminToken(p)}` } }],
      async () => {
        expect((await db().select().from(learningInstances).where(eq(learningInstances.id, li.id)).get())?.deletedAt).toBeNull();
        expect((await db().select().from(registrations).where(eq(registrations.id, reg.id)).get())?.deletedAt).toBeNull();
        expect((await db().select().from(goals).where(eq(goals.id, goal.body.id)).get())?.deletedAt).toBeNull();
      },
    );
    expect(steps).toBe(2); // failed after the registrations' update, and after the goals' update
    expect(last.status).toBe(204); // the retry, on a healthy D1, finished the delete
    expect((await api("GET", "/v0/registrations/{reg_id}", { token: await freshAdminToken(p), path: { reg_id: reg.id } })).status).toBe(404);
  });

  it("creating a goal assigned to the learners: no goal and no assignment", async () => {
    const li = await createInstance(p);
    await register(p, (await createAccount(p)).id, li.id, "learner");
    await failEachStep(
      /^insert into "goals"/i,
      async () => [
        `/v0/learning-instances/${li.id}/scoped-goals`,
        {
          method: "POST",
          headers: { Authorization: `Bearer ${await freshAdminToken(p)}`, "Content-Type": "application/json" },
          body: JSON.stringify({ name: "G", adaptive_behavior: "practice", targets: { include: ["lref-a"] }, config: { assign_to: "learners" } }),
        },
      ],
      async () => {
        expect(await db().select().from(goals).where(eq(goals.learningInstanceId, li.id)).all()).toEqual([]);
      },
    );
  });

  it("deleting a goal: it keeps its assignments", async () => {
    const li = await createInstance(p);
    await register(p, (await createAccount(p)).id, li.id, "learner"); // the learner the goal is assigned to
    const goal = await api("POST", "/v0/learning-instances/{id}/scoped-goals", {
      token: await freshAdminToken(p),
      body: { name: "G", adaptive_behavior: "practice", targets: { include: ["lref-a"] }, config: { assign_to: "learners" } },
      path: { id: li.id },
    });
    await failEachStep(
      /^delete from "goal_assignments"/i,
      async () => [
        `/v0/learning-instances/${li.id}/scoped-goals/${goal.body.id}`,
        { method: "DELETE", headers: { Authorization: `Bearer ${await freshAdminToken(p)}` } },
      ],
      async () => {
        expect(await db().select().from(goalAssignments).where(eq(goalAssignments.goalId, goal.body.id)).all()).toHaveLength(1);
        expect((await db().select().from(goals).where(eq(goals.id, goal.body.id)).get())?.deletedAt).toBeNull();
      },
    );
  });

  it("issuing a token: no access or refresh token row without the other", async () => {
    const account = await createAccount(p);
    await failEachStep(
      /^delete from "access_tokens"/i,
      async () => [
        "/v0/oauth/token",
        {
          method: "POST",
          headers: {
            Authorization: `Basic ${btoa(`${p.client_id}:${p.client_secret}`)}`,
            "Content-Type": "application/x-www-form-urlencoded",
            "CF-Connecting-IP": "192.0.2.77",
          },
          body: new URLSearchParams({ grant_type: "client_credentials", scope: account.external_user_id }).toString(),
        },
      ],
      async () => {
        expect(await db().select().from(accessTokens).where(eq(accessTokens.accountId, account.id)).all()).toEqual([]);
      },
    );
  });

  it("ingesting a graph: no graph, version or blob rows", async () => {
    const label = `gref-fault-${uniqueId()}`;
    await failEachStep(
      /^insert into "graphs"/i,
      async () => [
        "/v0/graphs",
        {
          method: "POST",
          headers: { Authorization: `Bearer ${await freshAdminToken(p)}`, "Content-Type": "application/json" },
          body: JSON.stringify(demoGraph(label)),
        },
      ],
      async () => {
        expect((await api("GET", "/v0/graphs/{graph_id}", { token: await freshAdminToken(p), path: { graph_id: label } })).status).toBe(404);
      },
    );
  });
});

describe("the model-updates queue consumer", () => {
  const graphUuid = () => db().select({ id: learningInstances.graphUuid }).from(learningInstances).where(isNull(learningInstances.deletedAt)).get();

  function messages(graph: string, n: number, tag = uniqueId("m")): ModelUpdateMessage[] {
    return Array.from({ length: n }, (_, i) => ({
      id: `${tag}:${i}`,
      graphUuid: graph,
      observations: [{ module: `mref-q-${tag}-${i}`, objectives: ["lref-a"], correct: i % 2 === 0, predicted: 0.5 }],
    }));
  }

  const observationsOf = async (graph: string, module: string) =>
    (
      await db()
        .select()
        .from(itemParams)
        .where(and(eq(itemParams.graphId, graph), eq(itemParams.module, module)))
        .get()
    )?.observations;

  async function deliver(bodies: unknown[], e: Env, queue = "pathwise-model-updates") {
    const batch = createMessageBatch(
      queue,
      bodies.map((body, i) => ({ id: (body as { id?: string }).id ?? `raw-${i}`, timestamp: new Date(), attempts: 1, body })),
    );
    await worker.queue(batch as MessageBatch<ModelUpdateMessage>, e);
    return getQueueResult(batch, createExecutionContext());
  }

  it("a failing D1: every message retried, nothing applied; redelivered to a healthy D1 it is applied once, a second redelivery changes nothing", async () => {
    await createInstance(p);
    const graph = (await graphUuid())!.id!;
    const batch = messages(graph, 3);
    const down = interceptD1(env.DB, {
      before() {
        throw new Error("D1 unavailable (injected)");
      },
    });
    const failed = await deliver(batch, { ...env, DB: down } as Env);
    expect(failed.ackAll).toBe(false);
    expect(failed.explicitAcks).toEqual([]);
    expect([...failed.retryMessages.map((m) => m.msgId)].sort()).toEqual(batch.map((m) => m.id).sort());
    expect(await observationsOf(graph, batch[0]!.observations[0]!.module)).toBeUndefined();

    const ok = await deliver(batch, env as Env);
    expect(ok.ackAll).toBe(true);
    expect(await observationsOf(graph, batch[0]!.observations[0]!.module)).toBe(1);
    const again = await deliver(batch, env as Env);
    expect(again.ackAll).toBe(true);
    expect(await observationsOf(graph, batch[0]!.observations[0]!.module)).toBe(1);
  });

  it("a poison message is retried alone; the good messages of its batch are applied and acknowledged", async () => {
    await createInstance(p);
    const graph = (await graphUuid())!.id!;
    const good = messages(graph, 2);
    const poison = { id: `poison-${uniqueId()}`, graphUuid: graph, observations: "not a list" };
    const result = await deliver([good[0], poison, good[1]], env as Env);
    expect(result.retryMessages.map((m) => m.msgId)).toEqual([poison.id]);
    expect(result.explicitAcks.sort()).toEqual(good.map((m) => m.id).sort());
    for (const m of good) expect(await observationsOf(graph, m.observations[0]!.module)).toBe(1);
  });

  it("through the real queue: a poison message is retried, then dead-lettered and recorded once; its good neighbour is applied once", async () => {
    await createInstance(p);
    const graph = (await graphUuid())!.id!;
    const [good] = messages(graph, 1);
    const poisonId = `poison-${uniqueId()}`;
    const errors = vi.spyOn(console, "error");
    await env.MODEL_UPDATES.sendBatch([{ body: good! }, { body: { id: poisonId, graphUuid: graph, observations: 42 } as unknown as ModelUpdateMessage }]);
    let dead: Json[] = [];
    await vi.waitFor(
      async () => {
        dead = (await db().select().from(deadLetters).all()).filter((r) => r.queue === "pathwise-model-updates" && r.body.includes(poisonId));
        expect(dead.length).toBeGreaterThan(0);
      },
      { timeout: 20_000, interval: 250 },
    );
    expect(dead).toHaveLength(1);
    expect(JSON.parse(dead[0]!.body)).toMatchObject({ id: poisonId, observations: 42 });
    // delivered 1 + maxRetries (2 in tests) times before it was dead-lettered
    const attempts = errors.mock.calls.map((c) => String(c[0])).filter((line) => line.includes(poisonId) && line.includes('"retry":true'));
    expect(attempts.length).toBe(3);
    errors.mockRestore();
    expect(await observationsOf(graph, good!.observations[0]!.module)).toBe(1);
  });

  it("a message sent as its JSON text (as the outbox sends them) is applied once, as the object is; its dead letter is recorded as the object", async () => {
    await createInstance(p);
    const graph = (await graphUuid())!.id!;
    const [text, object] = messages(graph, 2);
    for (let i = 0; i < 2; i++) {
      const r = await deliver([JSON.stringify(text), object], env as Env);
      expect(r.ackAll).toBe(true);
    }
    expect(await observationsOf(graph, text!.observations[0]!.module)).toBe(1);
    expect(await observationsOf(graph, object!.observations[0]!.module)).toBe(1);

    const dead = { id: `dead-text-${uniqueId()}`, graphUuid: "x", observations: [] };
    expect((await deliver([JSON.stringify(dead)], env as Env, "pathwise-model-updates-dlq")).ackAll).toBe(true);
    const recorded = (await db().select().from(deadLetters).all()).filter((r) => r.body.includes(dead.id));
    expect(recorded.map((r) => r.body)).toEqual([JSON.stringify(dead)]);
  });

  it("the dead-letter consumer records a redelivered dead letter once", async () => {
    const body = { id: `dead-${uniqueId()}`, graphUuid: "x", observations: [] };
    for (let i = 0; i < 2; i++) {
      const r = await deliver([{ ...body }], env as Env, "pathwise-model-updates-dlq");
      expect(r.ackAll).toBe(true);
    }
    expect((await db().select().from(deadLetters).all()).filter((r) => r.body.includes(body.id))).toHaveLength(1);
  });
});

describe("a TokenGate that cannot be reached", () => {
  const unreachable = (how: "reject" | "throw") => ({
    TOKEN_GATE: {
      idFromName: (name: string) => name,
      get: () => {
        if (how === "throw") throw new Error("Durable Object namespace unavailable (injected)");
        return { admit: () => Promise.reject(new Error("Network connection lost (injected)")) };
      },
    } as unknown as Env["TOKEN_GATE"],
  });

  it("fails closed: 503 with Retry-After and the error body, the request is not processed", async () => {
    for (const how of ["reject", "throw"] as const) {
      const ext = uniqueId("closed");
      const res = await asApi(
        await fetchWith(unreachable(how), "/v0/accounts", {
          method: "POST",
          headers: { Authorization: `Bearer ${p.adminToken}`, "Content-Type": "application/json" },
          body: JSON.stringify({ external_user_id: ext }),
        }),
      );
      expectErrorBody(res, 503);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(JSON.stringify(res.body)).not.toMatch(/injected/);
      // nothing was created: the id is still free
      expect((await api("POST", "/v0/accounts", { token: await freshAdminToken(p), body: { external_user_id: ext } })).status).toBe(201);
    }
  });

  it("never admits a token it could not check, not even a valid admin token on a read", async () => {
    const res = await fetchWith(unreachable("reject"), "/v0/accounts/current", { headers: { Authorization: `Bearer ${p.adminToken}` } });
    expect(res.status).toBe(503);
    // and an IpGate that cannot be reached fails the token endpoint closed as well
    const ip = await fetchWith(
      { IP_GATE: { idFromName: (n: string) => n, get: () => ({ take: () => Promise.reject(new Error("down")) }) } as unknown as Env["IP_GATE"] },
      "/v0/oauth/token",
      {
        method: "POST",
        headers: { Authorization: `Basic ${btoa(`${p.client_id}:${p.client_secret}`)}`, "Content-Type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials&scope=x",
      },
    );
    expect(ip.status).toBe(503);
    expect(ip.headers.get("retry-after")).toBeTruthy();
  });
});
