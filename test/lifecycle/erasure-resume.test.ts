import { createScheduledController, env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openDb } from "../../src/db/client";
import { erasures } from "../../src/db/schema";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import type { ErasureMessage } from "../../src/queues/messages";
import { advanceErasure } from "../../src/services/erasure/job";
import { accountForErasure, requestErasure } from "../../src/services/erasure/request";
import { createAccount, createInstance, freshAdminToken, type Json, newPartner, type Partner, register } from "../support/api";
import { completedReceipt, receipt } from "../support/lifecycle";
import { scanObjects } from "../support/storage-scan";
import { api } from "../support/typed-api";

/**
 * An erasure survives the Worker dying half way (docs/privacy.md "Erasure", "Resumable and safe to
 * repeat": the receipt stays pending until every store is done). The job is driven here by hand,
 * with the erasure queue's message lost (a producer that drops it) and a registration's Durable
 * Object failing mid-step, as a crashed invocation leaves things; then resumed.
 */

const db = () => openDb(env.DB);

/** An env whose erasure queue loses every message (the request is recorded, nothing runs it). */
const losingQueue = (): Env => ({ ...(env as Env), ERASURES: { send: async () => {}, sendBatch: async () => {} } as unknown as Queue<ErasureMessage> });

/** An env in which the erasure of one registration's object fails (the invocation dies there). */
function dyingAt(registrationId: string): Env {
  const real = env.REGISTRATIONS;
  const namespace = {
    idFromName: (name: string) => real.idFromName(name),
    get: (id: DurableObjectId) => {
      const stub = real.get(id);
      if (!id.equals(real.idFromName(registrationId))) return stub;
      return new Proxy(stub, { get: (target, prop) => (prop === "erase" ? () => Promise.reject(new Error("the Worker died")) : Reflect.get(target, prop)) });
    },
  };
  return { ...losingQueue(), REGISTRATIONS: namespace as unknown as Env["REGISTRATIONS"] };
}

/** A learner with three registrations of 5 events each and a token pair. */
async function learner(p: Partner): Promise<{ account: Json; regs: Json[] }> {
  const account = await createAccount(p);
  await p.tokenFor(account.external_user_id);
  const regs: Json[] = [];
  for (let i = 0; i < 3; i++) {
    const reg = await register(p, account.id, (await createInstance(p)).id, "learner");
    const events = Array.from({ length: 5 }, (_, k) => ({
      type: "graded-events" as const,
      module_id: "mref-a1",
      interaction_end_time: new Date(Date.now() - (10 - k) * 60_000).toISOString(),
      is_correct: k % 2 === 0,
    })).reverse();
    expect((await api("POST", "/v0/registrations/{id}/batch-events", { token: await freshAdminToken(p), body: { events }, path: { id: reg.id } })).status).toBe(
      204,
    );
    regs.push(reg);
  }
  return { account, regs };
}

async function request(p: Partner, accountId: string, on: Env): Promise<string> {
  const row = await accountForErasure(db(), accountId);
  if (!row) throw new Error("no account");
  const { erasure } = await requestErasure(on, db(), { type: "account", row }, { accountId: p.admin_account_id });
  return erasure.id;
}

const stepOf = async (id: string) => (await db().select({ step: erasures.step }).from(erasures).where(eq(erasures.id, id)).get())?.step;

describe("an erasure that is interrupted", () => {
  it("resumes where it stopped after the Worker died mid-step; stays pending until every store is done; counts nothing twice", async () => {
    const p = await newPartner("Resumed erasure partner");
    const { account, regs } = await learner(p);
    const erasureId = await request(p, account.id, losingQueue());
    // hidden at once, nothing removed yet
    expect((await api("GET", "/v0/registrations/{reg_id}", { token: await freshAdminToken(p), path: { reg_id: regs[0]!.id } })).status).toBe(404);
    expect((await receipt(p, erasureId)).body).toMatchObject({ status: "pending", completed_at: null, removed: {} });

    // an invocation dies while erasing the registrations' objects: two of them are already emptied
    const dying = dyingAt(regs[1]!.id);
    await expect(
      (async () => {
        for (;;) await advanceErasure(dying, db(), erasureId, 0);
      })(),
    ).rejects.toThrow("the Worker died");
    expect(await stepOf(erasureId)).toBe("objects");
    const halfway = (await receipt(p, erasureId)).body;
    expect(halfway).toMatchObject({ status: "pending", completed_at: null, removed: { access_tokens: 1, token_gates: 1 } });
    expect(halfway.removed.events).toBeUndefined(); // the emptied objects' counts were not recorded yet

    // and as if an earlier invocation had lost its record of the steps done: everything is redone
    await db().update(erasures).set({ step: "digests" }).where(eq(erasures.id, erasureId));
    expect(await advanceErasure(env as Env, db(), erasureId)).toBe("complete");
    const done = (await receipt(p, erasureId)).body;
    expect(done).toMatchObject({ status: "complete", completed_at: expect.any(String) });
    expect(done.removed).toMatchObject({
      registrations: 3,
      registration_objects: 3,
      events: 15,
      idempotency_records: 0,
      access_tokens: 1,
      refresh_tokens: 1,
      token_gates: 1,
    });
    expect((await scanObjects([account.id, account.external_user_id, ...regs.map((r) => r.id)])).findings).toEqual([]);
    // a late message for it changes nothing
    expect(await advanceErasure(env as Env, db(), erasureId)).toBe("complete");
    expect((await receipt(p, erasureId)).body).toEqual(done);
  }, 60_000);

  it("a lost queue message: the scheduled handler sends a stalled erasure to the queue again and it completes", async () => {
    const p = await newPartner("Stalled erasure partner");
    const { account } = await learner(p);
    const erasureId = await request(p, account.id, losingQueue());
    expect((await receipt(p, erasureId)).body.status).toBe("pending");
    // the cron trigger six minutes later (stalled: no progress for five)
    await worker.scheduled(createScheduledController({ scheduledTime: new Date(Date.now() + 6 * 60_000), cron: "* * * * *" }), env as Env);
    const done = await completedReceipt(p, erasureId);
    expect(done.removed).toMatchObject({ registrations: 3, events: 15 });
  }, 60_000);
});
