import { describe, expect, it } from "vitest";
import { newPartner } from "../support/api";
import { ingestNamingGoal } from "../support/ingest-request";
import { eventCount, registrationObject } from "../support/registration-object";

/**
 * Two requests with one Idempotency-Key that both pass the first look-up (neither is stored yet) and
 * interleave at the object's awaits store the events once: the second looks the key up again after
 * its awaits and answers the first outcome (src/objects/registration/idempotency.ts, outcomeSince).
 */
describe("one Idempotency-Key, two requests interleaved inside the object", () => {
  it("stores the events once and answers both with the first outcome", async () => {
    const { reg, request } = await ingestNamingGoal(await newPartner("Idempotency race partner"));
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
