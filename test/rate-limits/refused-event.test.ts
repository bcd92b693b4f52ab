import { describe, expect, it } from "vitest";
import { createAccount, createInstance, newPartner, register } from "../support/api";
import { eventCount, learnerState } from "../support/registration-object";
import { api } from "../support/typed-api";

/** Spec 8: a request refused by the rate limiter is not processed (docs/rate-limits.md "Token limits", "Not processed"). */

const secondsAgo = (s: number) => new Date(Date.now() - s * 1000).toISOString();
const ATOMS = ["mref-a1", "mref-a2", "mref-b1"];

describe("graded events beyond the token limit", () => {
  it("a refused event post leaves the learner state unchanged", async () => {
    const p = await newPartner();
    const li = await createInstance(p);
    const owner = await createAccount(p);
    const reg = await register(p, owner.id, li.id, "learner");
    const token = await p.tokenFor(owner.external_user_id);

    // 15 graded events with one token: the whole 15/min window of this registration's endpoint
    for (let i = 0; i < 15; i++) {
      const res = await api("POST", "/v0/registrations/{id}/graded-events", {
        token,
        path: { id: reg.id },
        body: { module_id: ATOMS[i % ATOMS.length]!, interaction_end_time: secondsAgo(60 - i), is_correct: i % 2 === 0, duration: 10_000 },
      });
      expect(res.status, `event ${i + 1}: ${JSON.stringify(res.body)}`).toBe(204);
      expect(res.headers.get("RateLimit-Remaining")).toBe(String(14 - i));
    }
    const countBefore = await eventCount(reg.id);
    const stateBefore = await learnerState(reg.id);
    expect(countBefore).toBe(15);
    expect(stateBefore.seq).toBe(15);

    const refused = await api("POST", "/v0/registrations/{id}/graded-events", {
      token,
      path: { id: reg.id },
      body: { module_id: "mref-a1", interaction_end_time: secondsAgo(1), is_correct: false, duration: 10_000 },
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("X-Service-Rate-Exceeded")).toBe("token-limited");

    expect(await eventCount(reg.id)).toBe(countBefore);
    expect(await learnerState(reg.id)).toEqual(stateBefore);
  });
});
