import { describe, expect, it } from "vitest";
import type { IngestRequest } from "../../src/objects/registration/rpc";
import { createAccount, createInstance, newPartner, register } from "../support/api";
import { createGoal } from "../support/goals";
import { eventCount, registrationObject } from "../support/registration-object";
import { api } from "../support/typed-api";

/**
 * Two requests with one Idempotency-Key that both pass the first look-up (neither is stored yet) and
 * interleave at the object's awaits store the events once: the second looks the key up again after
 * its awaits and answers the first outcome (src/objects/registration/idempotency.ts, outcomeSince).
 */
describe("one Idempotency-Key, two requests interleaved inside the object", () => {
  it("stores the events once and answers both with the first outcome", async () => {
    const p = await newPartner("Idempotency race partner");
    const li = await createInstance(p);
    const reg = await register(p, (await createAccount(p)).id, li.id, "learner");
    const goal = await createGoal(p, li.id);
    const graph = (await api("GET", "/v0/graphs/{graph_id}", { token: p.adminToken, path: { graph_id: "gref-demo" } })).body;
    const nowMs = Date.now();
    // naming a goal makes the object read D1 after the first look-up: the other request runs meanwhile
    const request: IngestRequest = {
      registrationId: reg.id,
      accountId: reg.account_id,
      registrationCreatedAt: nowMs,
      learningInstanceId: li.id,
      graphUuid: graph.id,
      graphVersion: graph.version,
      events: [{ kind: "graded", moduleId: "mref-b1", occurredAt: nowMs - 1000, path: "body.module_id", correct: true, goalId: goal.id }],
      goals: [{ goalId: goal.id, path: "body.goal_id" }],
      ignoreInvalidModuleIds: false,
      nowMs,
    };
    const stub = registrationObject(reg.id);
    for (let round = 0; round < 3; round++) {
      const before = await eventCount(reg.id);
      const key = `race-${round}-${crypto.randomUUID()}`;
      const outcomes = await Promise.all([stub.ingest({ ...request, idempotencyKey: key }), stub.ingest({ ...request, idempotencyKey: key })]);
      expect(outcomes.map((o) => o.ok && o.stored)).toEqual([1, 1]);
      expect(outcomes.filter((o) => o.replayed)).toHaveLength(1);
      expect(await eventCount(reg.id)).toBe(before + 1);
    }
  });
});
