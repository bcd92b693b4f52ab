import { createExecutionContext, createMessageBatch, env, getQueueResult, runInDurableObject } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { openDb } from "../../src/db/client";
import { itemParams } from "../../src/db/schema";
import worker from "../../src/index";
import { SERVICE_PARAMS } from "../../src/model/service-params";
import type { RegistrationObject } from "../../src/objects/registration/registration-object";
import type { ModelUpdateMessage } from "../../src/queues/messages";
import { clearItemParamsCache } from "../../src/reads/item-params";
import { createAccount, createInstance, newPartner, register } from "../support/api";
import { learnerState, outboxSize, registrationObject, replayedState } from "../support/registration-object";
import { api } from "../support/typed-api";

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

/**
 * Sends the registration's outbox now, as its alarm does. The alarm is due within seconds, so it may
 * already have run on its own; either way the outbox ends empty.
 */
async function flushOutbox(id: string): Promise<void> {
  await runInDurableObject(registrationObject(id), (object: RegistrationObject) => object.alarm()); // releases the held answers
  while ((await outboxSize(id)) > 0) await runInDurableObject(registrationObject(id), (object: RegistrationObject) => object.alarm());
  expect(await outboxSize(id)).toBe(0);
}

const demoGraphUuid = async (p: Awaited<ReturnType<typeof newPartner>>) =>
  (await api("GET", "/v0/graphs/{graph_id}", { token: p.adminToken, path: { graph_id: "gref-demo" } })).body.id as string;

/** Waits for the model-updates consumer to have counted `n` graded answers for the graph. */
async function expectObservations(graphUuid: string, n: number): Promise<void> {
  await vi.waitFor(
    async () => {
      const rows = await openDb(env.DB).select().from(itemParams).where(eq(itemParams.graphId, graphUuid)).all();
      expect(rows.reduce((sum, r) => sum + r.observations, 0)).toBe(n);
    },
    { timeout: 20_000, interval: 250 },
  );
}

describe("online item refinement", () => {
  it("graded answers go through the registration's outbox to the model-updates queue", async () => {
    const p = await newPartner();
    const li = await createInstance(p);
    const reg = await register(p, (await createAccount(p)).id, li.id, "learner");
    const res = await api("POST", "/v0/registrations/{id}/batch-events", {
      token: p.adminToken,
      body: {
        events: [
          { type: "graded-events" as const, module_id: "mref-a1", interaction_end_time: minutesAgo(1), is_correct: true },
          { type: "ungraded-events" as const, module_id: "mref-a3", interaction_end_time: minutesAgo(2) },
        ],
      },
      path: { id: reg.id },
    });
    expect(res.status).toBe(204);
    await flushOutbox(reg.id);
    // only the graded answer is an observation, and the real queue delivers it to the consumer
    await expectObservations(await demoGraphUuid(p), 1);
  });

  it("a 500-event batch reaches the queue through the outbox", async () => {
    const p = await newPartner();
    const li = await createInstance(p);
    const reg = await register(p, (await createAccount(p)).id, li.id, "learner");
    const start = Date.now() - 3 * 3600_000;
    const modules = ["mref-a1", "mref-a2", "mref-b1", "mref-b2", "mref-c1", "mref-c2", "mref-d1", "mref-d2"];
    const events = Array.from({ length: 500 }, (_, i) => ({
      type: "graded-events" as const,
      module_id: modules[i % modules.length]!,
      interaction_end_time: new Date(start + i * 1000).toISOString(),
      is_correct: i % 3 !== 0,
    })).reverse();
    expect((await api("POST", "/v0/registrations/{id}/batch-events", { token: p.adminToken, body: { events }, path: { id: reg.id } })).status).toBe(204);
    await flushOutbox(reg.id);
    await expectObservations(await demoGraphUuid(p), 500);
  });

  it("a registration's answers wait for its next contribution, then go to the queue together, each once", async () => {
    const p = await newPartner();
    const li = await createInstance(p);
    const reg = await register(p, (await createAccount(p)).id, li.id, "learner");
    const post = (module: string, m: number) =>
      api("POST", "/v0/registrations/{id}/graded-events", {
        token: p.adminToken,
        body: { module_id: module, interaction_end_time: minutesAgo(m), is_correct: true },
        path: { id: reg.id },
      });
    expect((await post("mref-a1", 3)).status).toBe(204);
    await flushOutbox(reg.id); // the first contribution is due at once
    expect((await post("mref-a2", 2)).status).toBe(204);
    expect((await post("mref-b1", 1)).status).toBe(204);
    // the next contribution is due 10 s after the first: nothing of these answers is queued yet
    expect(await outboxSize(reg.id)).toBe(0);
    await runInDurableObject(registrationObject(reg.id), (_o, state) => state.storage.kv.delete("population_contributed_at"));
    await flushOutbox(reg.id);
    await expectObservations(await demoGraphUuid(p), 3);
  });

  it("the consumer refines item parameters exactly once per message, even when delivered twice", async () => {
    const p = await newPartner();
    const graph = (await api("POST", "/v0/graphs", { token: p.adminToken, body: (await import("../support/demo-graph")).demoGraph("gref-refine") })).body;
    const message: ModelUpdateMessage = {
      id: `test:${crypto.randomUUID()}`,
      graphUuid: graph.id,
      observations: [
        { module: "mref-a1", objectives: ["lref-a"], correct: true, predicted: 0.3 },
        { module: "mref-a1", objectives: ["lref-a"], correct: true, predicted: 0.35 },
      ],
    };
    const batch = createMessageBatch<ModelUpdateMessage>("pathwise-model-updates", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: message },
      { id: "m2", timestamp: new Date(), attempts: 1, body: message },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.length + (result.ackAll ? 2 : 0)).toBeGreaterThan(0);
    const row = await openDb(env.DB)
      .select()
      .from(itemParams)
      .where(and(eq(itemParams.graphId, graph.id), eq(itemParams.module, "mref-a1")))
      .get();
    expect(row?.observations).toBe(2);
    expect(row?.shift).toBeGreaterThan(0);
    // two surprising successes make the item easier: difficulty moves down by the accumulated shift
    expect(row!.difficulty).toBeCloseTo(SERVICE_PARAMS.globalDifficulty - row!.shift, 9);

    // a redelivery of the same message changes nothing
    await worker.queue(
      createMessageBatch<ModelUpdateMessage>("pathwise-model-updates", [{ id: "m3", timestamp: new Date(), attempts: 2, body: message }]),
      env,
    );
    const again = await openDb(env.DB)
      .select()
      .from(itemParams)
      .where(and(eq(itemParams.graphId, graph.id), eq(itemParams.module, "mref-a1")))
      .get();
    expect(again).toEqual(row);
  });

  it("events use the refined item parameters, and replay reproduces the state exactly", async () => {
    const p = await newPartner();
    const li = await createInstance(p);
    const graph = (await api("GET", "/v0/graphs/{graph_id}", { token: p.adminToken, path: { graph_id: "gref-demo" } })).body;
    const reg = await register(p, (await createAccount(p)).id, li.id, "learner");
    const post = (module: string, correct: boolean, m: number) =>
      api("POST", "/v0/registrations/{id}/graded-events", {
        token: p.adminToken,
        body: { module_id: module, interaction_end_time: minutesAgo(m), is_correct: correct },
        path: { id: reg.id },
      });
    expect((await post("mref-b1", true, 10)).status).toBe(204);
    // the item bank learns that mref-b2 is very hard; the isolate's cache is refreshed
    await openDb(env.DB)
      .insert(itemParams)
      .values({ graphId: graph.id, module: "mref-b2", easiness: -1.5, difficulty: 2.5, observations: 400, shift: 0.4, updatedAt: Date.now() });
    clearItemParamsCache();
    expect((await post("mref-b2", true, 9)).status).toBe(204);
    expect((await post("mref-b1", false, 8)).status).toBe(204);
    const incremental = await learnerState(reg.id);
    expect(await replayedState(reg.id)).toEqual(incremental);
  });
});
