import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { PROJECTION_VERSION, type ProjectionMessage } from "../../src/analytics";
import { openDb } from "../../src/db/client";
import { accountProjections, deadLetters } from "../../src/db/schema";
import { replayDeadLetters } from "../../src/queues/dead-letters";
import { consumeProjections } from "../../src/queues/projections";
import { createAccount, createGraph, newPartner } from "../support/api";
import { projectionPublications } from "../support/registration-object";
import { api } from "../support/typed-api";

/** The projections queue's consumer: idempotent and order-independent; poisoned messages dead-lettered, noticed and replayable. */

const db = () => openDb(env.DB);

async function accountAndGraph() {
  const p = await newPartner("Projection partner");
  const account = await createAccount(p);
  const graph = await createGraph(p);
  return { p, accountId: account.id, graphId: graph.id };
}

function message(accountId: string, graphId: string, registrationId: string, seq: number, mu: number, answered: number[]): ProjectionMessage {
  return {
    version: PROJECTION_VERSION,
    accountId,
    graphId,
    registrationId,
    registrationCreatedAt: 1_000 + registrationId.length,
    seq,
    lastActivity: 1_700_000_000_000 + seq,
    global: [0.1 * seq, 0.5, seq, 1_700_000_000_000 + seq],
    objectives: { "lref-a": [mu, 0.3, seq, 1_700_000_000_000 + seq] },
    answered: { "lref-a": answered },
  };
}

async function consume(messages: ProjectionMessage[]) {
  const batch = createMessageBatch(
    "pathwise-projections",
    messages.map((body, i) => ({ id: `m${i}-${crypto.randomUUID()}`, timestamp: new Date(), attempts: 1, body })),
  );
  await consumeProjections(batch, db());
  return getQueueResult(batch, createExecutionContext());
}

async function projection(accountId: string, graphId: string) {
  return db()
    .select({ body: accountProjections.body })
    .from(accountProjections)
    .where(and(eq(accountProjections.accountId, accountId), eq(accountProjections.graphId, graphId)))
    .get();
}

describe("projections consumer", () => {
  it("gives the same projection whatever the order, and when a message is applied twice", async () => {
    const { accountId, graphId } = await accountAndGraph();
    const m = [
      message(accountId, graphId, "reg-one", 1, 0.1, [5, 9]),
      message(accountId, graphId, "reg-one", 2, 0.4, [5, 9, 13]),
      message(accountId, graphId, "reg-two", 1, -0.2, [7]),
      message(accountId, graphId, "reg-two", 3, 0.3, [7, 11]),
    ];
    await consume(m);
    const inOrder = await projection(accountId, graphId);
    expect(inOrder?.body.objectives["lref-a"]?.answered).toEqual([5, 7, 9, 11, 13]);

    const other = await accountAndGraph();
    const shuffled = [m[3], m[1], m[0], m[2]].map((x) => ({ ...(x as ProjectionMessage), accountId: other.accountId, graphId: other.graphId }));
    await consume(shuffled.slice(0, 2));
    await consume([...shuffled.slice(2), ...shuffled]); // late messages, then everything again
    const outOfOrder = await projection(other.accountId, other.graphId);
    expect({ ...outOfOrder?.body, accountId: "", graphId: "" }).toEqual({ ...inOrder?.body, accountId: "", graphId: "" });
    const result = await consume(m);
    expect(result.explicitAcks.length).toBe(4);
    expect((await projection(accountId, graphId))?.body).toEqual(inOrder?.body);
  });

  it("retries a malformed message (the rest of its batch is applied); after its retries it lands in the dead-letter queue and in D1", async () => {
    const { accountId, graphId } = await accountAndGraph();
    const good = message(accountId, graphId, "reg-ok", 1, 0.2, [3]);
    const batch = createMessageBatch("pathwise-projections", [
      { id: "good", timestamp: new Date(), attempts: 1, body: good },
      { id: "bad", timestamp: new Date(), attempts: 1, body: { version: 99, hello: "world" } as unknown as ProjectionMessage },
    ]);
    await consumeProjections(batch, db());
    const result = await getQueueResult(batch, createExecutionContext());
    expect(result.explicitAcks).toEqual(["good"]);
    expect(result.retryMessages.map((r) => r.msgId)).toEqual(["bad"]);
    expect(await projection(accountId, graphId)).toBeDefined();

    // through the real queue: retried, then dead-lettered and recorded
    const marker = `poison-${crypto.randomUUID()}`;
    await env.PROJECTIONS.send({ version: 99, marker } as unknown as ProjectionMessage);
    await vi.waitFor(
      async () => {
        const rows = await db().select().from(deadLetters).where(eq(deadLetters.queue, "pathwise-projections")).all();
        expect(rows.some((r) => r.body.includes(marker))).toBe(true);
      },
      { timeout: 20_000, interval: 250 },
    );
  });

  it("replays dead letters an operator asked for, and a replayed good message is merged", async () => {
    const { accountId, graphId } = await accountAndGraph();
    const lost = message(accountId, graphId, "reg-lost", 4, 0.5, [21]);
    const id = `dead-${crypto.randomUUID()}`;
    await db()
      .insert(deadLetters)
      .values({ id, queue: "pathwise-projections", body: JSON.stringify(lost), attempts: 6, receivedAt: Date.now(), replayRequestedAt: null });
    expect(await replayDeadLetters(env, db())).toBe(0); // nothing requested yet
    await db().update(deadLetters).set({ replayRequestedAt: Date.now() }).where(eq(deadLetters.id, id));
    expect(await replayDeadLetters(env, db())).toBeGreaterThanOrEqual(1);
    expect(await db().select().from(deadLetters).where(eq(deadLetters.id, id)).get()).toBeUndefined();
    await vi.waitFor(async () => expect((await projection(accountId, graphId))?.body.objectives["lref-a"]?.answered).toEqual([21]), {
      timeout: 15_000,
      interval: 250,
    });
  });

  it("an answer posted through the API reaches the account's projection", async () => {
    const p = await newPartner("Projection flow partner");
    const account = await createAccount(p);
    const li = (await api("POST", "/v0/learning-instances", { token: p.adminToken, body: { graph_id: (await createGraph(p)).id, name: "C" } })).body;
    const reg = (
      await api("POST", "/v0/registrations", { token: p.adminToken, body: { account_id: account.id, learning_instance_id: li.id, type: "learner" } })
    ).body;
    const post = await api("POST", "/v0/registrations/{id}/graded-events", {
      token: p.adminToken,
      body: { module_id: "mref-d1", interaction_end_time: new Date(Date.now() - 1000).toISOString(), is_correct: true },
      path: { id: reg.id },
    });
    expect(post.status).toBe(204);
    const graphId = li.graph_id;
    await vi.waitFor(
      async () => {
        const row = await projection(account.id, graphId);
        expect(row?.body.objectives["lref-d"]?.beliefs[reg.id]?.[2]).toBe(1);
        expect(row?.body.registrations[reg.id]?.lastActivity).toBeGreaterThan(0);
      },
      { timeout: 15_000, interval: 250 },
    );
  });

  it("the answers of a few seconds are published once, from the state they led to (docs/api-conventions.md, Freshness: coalesced per registration)", async () => {
    const p = await newPartner("Projection coalescing partner");
    const account = await createAccount(p);
    const li = (await api("POST", "/v0/learning-instances", { token: p.adminToken, body: { graph_id: (await createGraph(p)).id, name: "C" } })).body;
    const reg = (
      await api("POST", "/v0/registrations", { token: p.adminToken, body: { account_id: account.id, learning_instance_id: li.id, type: "learner" } })
    ).body;
    for (const [i, correct] of [true, false, true].entries()) {
      const post = await api("POST", "/v0/registrations/{id}/graded-events", {
        token: p.adminToken,
        body: { module_id: "mref-d1", interaction_end_time: new Date(Date.now() - 3000 + i * 1000).toISOString(), is_correct: correct },
        path: { id: reg.id },
      });
      expect(post.status).toBe(204);
    }
    await vi.waitFor(
      async () => {
        const row = await projection(account.id, li.graph_id);
        expect(row?.body.objectives["lref-d"]?.beliefs[reg.id]?.[2]).toBe(3);
      },
      { timeout: 15_000, interval: 250 },
    );
    // three answers, one publication (one message per answer before)
    expect(await projectionPublications(reg.id)).toBe(1);
  });
});
