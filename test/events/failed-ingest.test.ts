import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ModelStateStore } from "../../src/objects/registration/model-state-store";
import type { RegistrationObject } from "../../src/objects/registration/registration-object";
import { createAccount, createInstance, newPartner, register } from "../support/api";
import { eventCount, learnerState, modelState, registrationObject, replayedModelState } from "../support/registration-object";
import { api } from "../support/typed-api";

const answer = (p: Awaited<ReturnType<typeof newPartner>>, id: string, correct: boolean) =>
  api("POST", "/v0/registrations/{id}/graded-events", {
    token: p.adminToken,
    body: { module_id: "mref-a1", interaction_end_time: new Date().toISOString(), is_correct: correct },
    path: { id },
  });

describe("a graded event whose transaction fails", () => {
  it("changes nothing: the object's state stays the stored one (events are applied to it in place), and the next event starts from it", async () => {
    const p = await newPartner();
    const li = await createInstance(p);
    const reg = await register(p, (await createAccount(p)).id, li.id, "learner");
    expect((await answer(p, reg.id, true)).status).toBe(204);
    const before = await modelState(reg.id);

    const failed = await runInDurableObject(registrationObject(reg.id), async (_object: RegistrationObject, state) => {
      // The tutor state's write (after the events were applied and the learner state written) fails.
      const kv = state.storage.kv;
      const put = kv.put.bind(kv);
      kv.put = (key: string, value: unknown) => {
        if (key === "tutor_state") throw new Error("storage refused the write");
        put(key, value);
      };
      try {
        return (await answer(p, reg.id, false)).status;
      } finally {
        kv.put = put;
      }
    });
    expect(failed).toBeGreaterThanOrEqual(500);
    expect(await eventCount(reg.id)).toBe(1);
    // What the object answers from (its cached state) is the stored state, as before the request.
    expect(await learnerState(reg.id)).toEqual(before.learner);
    expect(
      await runInDurableObject(registrationObject(reg.id), (_object: RegistrationObject, state) => new ModelStateStore(state.storage.kv).current()),
    ).toEqual(before);

    expect((await answer(p, reg.id, false)).status).toBe(204);
    const after = await modelState(reg.id);
    expect(after.learner.seq).toBe(before.learner.seq + 1);
    expect(after).toEqual(await replayedModelState(reg.id));
    expect(await learnerState(reg.id)).toEqual(after.learner);
  });
});
