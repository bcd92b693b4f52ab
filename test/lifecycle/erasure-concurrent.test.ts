import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { openDb } from "../../src/db/client";
import { claimStatements } from "../../src/services/xapi";
import type { MappedStatement } from "../../src/services/xapi-mapping";
import { createAccount, createInstance, freshAdminToken, type Json, newPartner, register } from "../support/api";
import { ingestNamingGoal } from "../support/ingest-request";
import { graded, receipt, requestAccountErasure } from "../support/lifecycle";
import { registrationObject } from "../support/registration-object";
import { scanD1, scanObjects } from "../support/storage-scan";
import { api } from "../support/typed-api";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Events racing the erasure (docs/privacy.md "Erasure"): events keep arriving while the account is
 * erased. Each is either refused (404: the registration is hidden at once, and an object already
 * erased refuses what raced past that check) or stored before its object was erased and erased with
 * it; nothing is resurrected after `complete`.
 *
 * The posts go in rounds of four concurrent batches, with a short pause between rounds: workerd
 * runs timers (the queue's batch timeout, which drives the erasure job) only when the event loop
 * gets a moment, so an endless stream of requests would starve the job this test waits for.
 */
describe("erasure while events are posted", () => {
  it("every concurrent post is stored-then-erased or refused; afterwards nothing of the account survives anywhere", async () => {
    const p = await newPartner("Concurrent erasure partner");
    const student = await createAccount(p);
    const regs = [
      await register(p, student.id, (await createInstance(p)).id, "learner"),
      await register(p, student.id, (await createInstance(p)).id, "learner"),
    ];
    const studentToken = await p.tokenFor(student.external_user_id);

    const statuses: number[] = [];
    let n = 0;
    let ownTokenRevoked = false;
    const post = async (regId: string, own: boolean) => {
      if (own && ownTokenRevoked) return;
      const events = Array.from({ length: 5 }, (_, k) => ({
        type: "graded-events" as const,
        ...graded(k % 2 ? "mref-a1" : "mref-c1", k % 3 === 0, 10 - k),
      })).reverse();
      const res = await api("POST", "/v0/registrations/{id}/batch-events", {
        token: own ? studentToken : await freshAdminToken(p),
        body: { events },
        headers: { "Idempotency-Key": `k-${n++}` },
        path: { id: regId },
      });
      statuses.push(res.status);
      // its own token is revoked with the erasure (a failed authentication is IP-limited: stop using it)
      if (res.status === 401) ownTokenRevoked = true;
    };
    const round = async <T>(alongside?: Promise<T>): Promise<T | undefined> => {
      const [, value] = await Promise.all([
        Promise.all([post(regs[0]!.id, false), post(regs[0]!.id, false), post(regs[1]!.id, false), post(regs[1]!.id, true)]),
        alongside,
      ]);
      await sleep(20);
      return value;
    };

    for (let i = 0; i < 3; i++) await round();
    const accepted = await round(requestAccountErasure(p, student.id));
    expect(accepted?.status).toBe(202);
    let done: Json | undefined;
    for (let i = 0; i < 500 && done?.status !== "complete"; i++) done = (await round(receipt(p, accepted?.body.erasure_id)))?.body;
    expect(done?.status).toBe("complete");
    for (let i = 0; i < 3; i++) await round(); // posts keep coming after completion

    // stored (204) before the erasure hid the registrations, then refused: 404 (admin), 401 (its own revoked token)
    expect(new Set(statuses)).toEqual(new Set([204, 404, 401]));
    const storedBeforehand = statuses.filter((s) => s === 204).length * 5;
    expect(done?.removed.events).toBeGreaterThanOrEqual(15 * 5);
    expect(done?.removed.events).toBeLessThanOrEqual(storedBeforehand);

    await sleep(2500); // queued messages of the erased registrations are delivered (and dropped)
    const needles = [student.id, student.external_user_id, ...regs.map((r) => r.id)];
    const inD1 = await scanD1(needles);
    expect(inD1.filter((f) => !(f.needle === student.id && ["accounts", "erasures", "data_requests"].includes(f.where)))).toEqual([]);
    expect((await scanObjects(needles)).findings).toEqual([]);
    const late = await api("POST", "/v0/registrations/{id}/graded-events", {
      token: await freshAdminToken(p),
      body: graded("mref-a1", true),
      path: { id: regs[0]!.id },
    });
    expect(late.status).toBe(404);
  }, 90_000);

  it("an event that passed the registration check before the erasure and reaches the object during it is refused; the object keeps only its tombstone", async () => {
    const p = await newPartner("Racing event partner");
    // naming a goal makes the object read D1 before it stores anything, which lets the erasure in
    const { reg, request } = await ingestNamingGoal(p);
    expect(
      (await api("POST", "/v0/registrations/{id}/graded-events", { token: p.adminToken, body: graded("mref-a1", true), path: { id: reg.id } })).status,
    ).toBe(204);
    const stub = registrationObject(reg.id);
    const [outcome, counts] = await Promise.all([stub.ingest(request), stub.erase()]);
    expect(outcome).toMatchObject({ ok: false, status: 404 });
    expect(counts.events).toBe(1);
    expect(await stub.ingest({ ...request, goals: [], events: [{ ...request.events[0]!, goalId: undefined }] })).toMatchObject({ ok: false, status: 404 });
    expect(await stub.erase()).toEqual(counts); // a repeated erase (a resumed job) reports the same
    const left = await runInDurableObject(stub, (_o: unknown, state: DurableObjectState) => ({
      tables: state.storage.sql
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'")
        .toArray(),
      keys: [...state.storage.kv.list()].map(([key]) => key),
    }));
    expect(left).toEqual({ tables: [], keys: ["erased"] });
    expect(await runInDurableObject(stub, (_o: unknown, state: DurableObjectState) => state.storage.getAlarm())).toBeNull();
  });
  it("an xAPI statement whose registration's erasure completed after the request read it is refused with 400, nothing stored", async () => {
    const p = await newPartner("Racing statement partner");
    const account = await createAccount(p);
    const reg = await register(p, account.id, (await createInstance(p)).id, "learner");
    // what the route has mapped and checked before it claims the ids, the registration's row gone since
    const mapped: MappedStatement = {
      id: crypto.randomUUID(),
      registrationId: crypto.randomUUID(),
      actorName: account.external_user_id,
      at: "body[1]",
      event: {
        kind: "graded",
        moduleId: "mref-a1",
        occurredAt: Date.now() - 1000,
        path: "body[1].object.id",
        correct: true,
        statement: { id: "s", fingerprint: "f" },
      },
    };
    const live: MappedStatement = { ...mapped, id: crypto.randomUUID(), registrationId: reg.id, at: "body[0]" };
    const refused = await claimStatements(openDb(env.DB), p.partner_id, [live, mapped], Date.now()).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 400, details: [{ path: "body[1].context.registration", message: "no such registration" }] });
    const claims = await env.DB.prepare("SELECT COUNT(*) AS n FROM xapi_statements WHERE partner_id = ?").bind(p.partner_id).first<{ n: number }>();
    expect(claims?.n).toBe(0);
  });
});
