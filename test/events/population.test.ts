import { createExecutionContext, createMessageBatch, env, getQueueResult, runInDurableObject } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { openDb } from "../../src/db/client";
import { populationGraphs, populationItems, populationObjectives } from "../../src/db/schema";
import worker from "../../src/index";
import type { RegistrationObject } from "../../src/objects/registration/registration-object";
import type { ModelUpdateMessage } from "../../src/queues/messages";
import { clearPopulationCache, loadPopulationRates, POPULATION_CADENCE } from "../../src/reads/population-rates";
import { REREAD_EVERY_MS } from "../../src/tracing/reread";
import { createAccount, createInstance, newPartner, register } from "../support/api";
import { demoGraph } from "../support/demo-graph";
import { outboxSize, registrationObject } from "../support/registration-object";
import { answer, recommendation, tutoringWorld } from "../support/tutoring";
import { api } from "../support/typed-api";

/**
 * The engine learns its graph's rates from its population (docs/recommendation.md "Estimation"):
 * each registration's alarm contributes its reading of its evidence (a difference to what it sent
 * before) through the outbox and the model-updates queue; the consumer adds it to the graph's sums
 * in D1, exactly once; every isolate estimates the rates from the sums.
 */

/** Runs the registration's alarm (contribution and outbox) until its outbox is empty. */
async function flush(id: string): Promise<void> {
  await runInDurableObject(registrationObject(id), (object: RegistrationObject) => object.alarm());
  while ((await outboxSize(id)) > 0) await runInDurableObject(registrationObject(id), (object: RegistrationObject) => object.alarm());
}

async function sums(graphId: string) {
  const db = openDb(env.DB);
  const items = await db.select().from(populationItems).where(eq(populationItems.graphId, graphId)).all();
  const objectives = await db.select().from(populationObjectives).where(eq(populationObjectives.graphId, graphId)).all();
  const graph = await db.select().from(populationGraphs).where(eq(populationGraphs.graphId, graphId)).get();
  return { answers: items.reduce((s, r) => s + r.known + r.unknown + r.partial, 0), items, objectives, graph };
}

async function classOnFreshGraph(learners: number) {
  const p = await newPartner("Population partner");
  const label = `gref-pop-${crypto.randomUUID().slice(0, 8)}`;
  const graph = (await api("POST", "/v0/graphs", { token: p.adminToken, body: demoGraph(label) })).body;
  const li = await createInstance(p, { graph_id: label, name: "Population class" });
  const regs = [];
  for (let i = 0; i < learners; i++) regs.push(await register(p, (await createAccount(p)).id, li.id, "learner"));
  return { p, graphId: graph.id as string, regs };
}

const batch = (modules: string[], correct: (i: number) => boolean, hoursAgo: number) => ({
  events: modules
    .map((module_id, i) => ({
      type: "graded-events" as const,
      module_id,
      interaction_end_time: new Date(Date.now() - hoursAgo * 3600_000 + i * 60_000).toISOString(),
      is_correct: correct(i),
    }))
    .reverse(),
});

describe("population statistics", () => {
  it("gather every learner's answers once, and a learner's later reading replaces its earlier one", async () => {
    const { p, graphId, regs } = await classOnFreshGraph(3);
    const first = ["mref-a1", "mref-a2", "mref-a3", "mref-b1", "mref-b2"];
    for (const reg of regs) {
      const res = await api("POST", "/v0/registrations/{id}/batch-events", {
        token: p.adminToken,
        body: batch(first, (i) => i % 4 !== 1, 3),
        path: { id: reg.id },
      });
      expect(res.status).toBe(204);
      await flush(reg.id);
    }
    // every graded answer is counted once: expected answers knowing the objective + guessing + knowing part of it
    await vi.waitFor(async () => expect((await sums(graphId)).answers).toBeCloseTo(3 * first.length, 6), { timeout: 20_000, interval: 250 });
    const before = await sums(graphId);
    expect(before.graph?.learners).toBeCloseTo(3, 9);
    expect(before.objectives.map((o) => o.objective).sort()).toEqual(["lref-a", "lref-b"]);

    // More answers from one learner: its re-reading replaces what it sent (the totals grow by the new answers only).
    const more = ["mref-b3", "mref-b1", "mref-c1"];
    const reg = regs[0] as (typeof regs)[number];
    await runInDurableObject(registrationObject(reg.id), (_o, state) => state.storage.kv.delete("population_contributed_at"));
    expect(
      (await api("POST", "/v0/registrations/{id}/batch-events", { token: p.adminToken, body: batch(more, () => true, 2), path: { id: reg.id } })).status,
    ).toBe(204);
    await flush(reg.id);
    await vi.waitFor(async () => expect((await sums(graphId)).answers).toBeCloseTo(3 * first.length + more.length, 6), { timeout: 20_000, interval: 250 });
    const after = await sums(graphId);
    expect(after.graph?.learners).toBeCloseTo(3, 9);
    expect(after.graph?.version).toBeGreaterThan(before.graph?.version ?? 0);

    // Every isolate estimates the rates from the sums: a version of its own, rates for the answered items.
    clearPopulationCache();
    const rates = await loadPopulationRates(openDb(env.DB), graphId);
    expect(rates.version).toBe(`${graphId}:${after.graph?.version}`);
    expect(rates.answers).toBeCloseTo(3 * first.length + more.length, 6);
    expect(Object.keys(rates.items).sort()).toEqual(["mref-a1", "mref-a2", "mref-a3", "mref-b1", "mref-b2", "mref-b3", "mref-c1"]);
    for (const r of Object.values(rates.items)) {
      expect(r.guess).toBeGreaterThan(0);
      expect(r.guess + r.slip).toBeLessThan(1);
    }
  });

  it("a learner who stopped answering re-reads its evidence once the class moved the rates", async () => {
    const { p, graphId, regs } = await classOnFreshGraph(3);
    const answers = ["mref-a1", "mref-a2", "mref-a3", "mref-b1", "mref-b2"];
    const [early, ...others] = regs as [(typeof regs)[number], ...typeof regs];
    const post = (id: string) =>
      api("POST", "/v0/registrations/{id}/batch-events", { token: p.adminToken, body: batch(answers, (i) => i % 4 !== 1, 3), path: { id } });
    const kv = <T>(id: string, key: string) => runInDurableObject(registrationObject(id), (_o, state) => state.storage.kv.get<T>(key));
    // the first learner is read under the priors, then stops; the others' answers move the rates
    expect((await post(early.id)).status).toBe(204);
    await flush(early.id);
    expect(await kv<string>(early.id, "population_read_version")).toBe("prior");
    // its next alarm (the projection's, which the post arms once it has answered) re-arms it for the first re-reading check
    const contributedAt = await kv<number>(early.id, "population_contributed_at");
    await vi.waitFor(
      async () => {
        const alarm = await runInDurableObject(registrationObject(early.id), async (object: RegistrationObject, state) => {
          await object.alarm();
          return state.storage.getAlarm();
        });
        expect(alarm).toBe((contributedAt ?? Number.NaN) + REREAD_EVERY_MS);
      },
      { timeout: 10_000, interval: 100 },
    );
    for (const reg of others) {
      expect((await post(reg.id)).status).toBe(204);
      await flush(reg.id);
    }
    await vi.waitFor(async () => expect((await sums(graphId)).answers).toBeCloseTo(3 * answers.length, 6), { timeout: 20_000, interval: 250 });
    const before = await sums(graphId);

    // Its alarm, REREAD_EVERY_MS later, re-reads the unchanged evidence under the class's rates.
    const makeDue = (id: string) =>
      runInDurableObject(registrationObject(id), (_o, state) => state.storage.kv.put("population_contributed_at", Date.now() - REREAD_EVERY_MS - 1));
    clearPopulationCache();
    await makeDue(early.id);
    await flush(early.id);
    const version = `${graphId}:${before.graph?.version}`;
    expect(await kv<string>(early.id, "population_read_version")).toBe(version);
    await vi.waitFor(async () => expect((await sums(graphId)).graph?.version).toBeGreaterThan(before.graph?.version ?? 0), { timeout: 20_000, interval: 250 });
    const after = await sums(graphId);
    // the re-reading replaced the earlier one: the answers and learners are counted once, how they are read moved
    expect(after.answers).toBeCloseTo(before.answers, 6);
    expect(after.graph?.learners).toBeCloseTo(3, 9);
    const knownAtStart = (s: typeof before) => s.objectives.reduce((sum, o) => sum + o.knownAtStart, 0);
    expect(knownAtStart(after)).not.toBeCloseTo(knownAtStart(before), 6);

    // New evidence, once contributed, starts the re-readings over.
    expect((await post(early.id)).status).toBe(204);
    await makeDue(early.id);
    await flush(early.id);
    expect(await kv<number>(early.id, "population_rereads")).toBe(0);
  });

  it("an isolate re-reads a young graph's rates after the young cadence, not before", async () => {
    const { p, graphId, regs } = await classOnFreshGraph(2);
    const post = (id: string, modules: string[]) =>
      api("POST", "/v0/registrations/{id}/batch-events", { token: p.adminToken, body: batch(modules, () => true, 2), path: { id } });
    const [one, two] = regs as [(typeof regs)[number], (typeof regs)[number]];
    expect((await post(one.id, ["mref-a1", "mref-a2"])).status).toBe(204);
    await flush(one.id);
    await vi.waitFor(async () => expect((await sums(graphId)).answers).toBeCloseTo(2, 6), { timeout: 20_000, interval: 250 });
    clearPopulationCache();
    const t0 = Date.now();
    const first = await loadPopulationRates(openDb(env.DB), graphId, t0);
    expect(first.answers).toBeLessThan(POPULATION_CADENCE.youngAnswers);

    expect((await post(two.id, ["mref-b1", "mref-b2", "mref-b3"])).status).toBe(204);
    await flush(two.id);
    await vi.waitFor(async () => expect((await sums(graphId)).answers).toBeCloseTo(5, 6), { timeout: 20_000, interval: 250 });
    expect((await loadPopulationRates(openDb(env.DB), graphId, t0 + POPULATION_CADENCE.youngMs - 1)).version).toBe(first.version);
    const next = await loadPopulationRates(openDb(env.DB), graphId, t0 + POPULATION_CADENCE.youngMs);
    expect(next.version).not.toBe(first.version);
    expect(next.answers).toBeCloseTo(5, 6);
  });

  it("a graph nobody has answered has the priors", async () => {
    clearPopulationCache();
    expect((await loadPopulationRates(openDb(env.DB), crypto.randomUUID())).version).toBe("prior");
  });

  it("the consumer applies a population message once, even when delivered twice", async () => {
    const { graphId } = await classOnFreshGraph(0);
    const message: ModelUpdateMessage = {
      id: `test:${crypto.randomUUID()}`,
      graphUuid: graphId,
      observations: [],
      population: {
        items: { "mref-a1": { objective: "lref-a", known: 0.75, knownRight: 0.7, unknown: 0.2, unknownRight: 0.05, partial: 0.05 } },
        objectives: {
          "lref-a": {
            episodes: 1,
            knownAtStart: 0.5,
            learnOpportunities: 1,
            learnings: 0.25,
            teachOpportunities: 0,
            teachings: 0,
            partialEntries: 0.1,
            directEntries: 0.15,
          },
        },
        speed: { learners: 1, logSquares: 0.1 },
      },
    };
    const deliveries = createMessageBatch<ModelUpdateMessage>("pathwise-model-updates", [
      { id: "p1", timestamp: new Date(), attempts: 1, body: message },
      { id: "p2", timestamp: new Date(), attempts: 1, body: message },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(deliveries, env);
    await getQueueResult(deliveries, ctx);
    await worker.queue(
      createMessageBatch<ModelUpdateMessage>("pathwise-model-updates", [{ id: "p3", timestamp: new Date(), attempts: 2, body: message }]),
      env,
    );
    const s = await sums(graphId);
    expect(s.answers).toBeCloseTo(1, 9);
    expect(s.items[0]).toMatchObject({ known: 0.75, knownRight: 0.7 });
    expect(s.graph).toMatchObject({ version: 1, learners: 1 });
  });

  it("a recommendation records the version of the rates it was computed with", async () => {
    const w = await tutoringWorld();
    await answer(w, "mref-a1", true);
    const rec = await recommendation(w);
    expect(rec.status).toBe(200);
    const stored = await runInDurableObject(registrationObject(w.reg.id), (_o, state) =>
      state.storage.kv.get<{ id: number; ratesVersion: string }>(`recommendation:${w.goalId}`),
    );
    expect(stored?.id).toBe(rec.body.recommendation_id);
    // nobody had answered on this partner's graph before: the priors
    expect(stored?.ratesVersion).toBe("prior");
  });
});
