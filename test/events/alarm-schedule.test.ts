import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { PROJECTION_DELAY_MS } from "../../src/objects/registration/pending-projection";
import type { RegistrationObject } from "../../src/objects/registration/registration-object";
import { POPULATION_CADENCE } from "../../src/reads/population-rates";
import { createAccount, createInstance, newPartner, register } from "../support/api";
import { registrationObject } from "../support/registration-object";
import { api } from "../support/typed-api";

const answer = (p: Awaited<ReturnType<typeof newPartner>>, id: string) =>
  api("POST", "/v0/registrations/{id}/graded-events", {
    token: p.adminToken,
    body: { module_id: "mref-a1", interaction_end_time: new Date().toISOString(), is_correct: true },
    path: { id },
  });

describe("the registration's alarm", () => {
  it("an answer stored while the alarm sends keeps its projection due within PROJECTION_DELAY_MS (the alarm's end does not postpone it to the next contribution)", async () => {
    const p = await newPartner();
    const li = await createInstance(p);
    const reg = await register(p, (await createAccount(p)).id, li.id, "learner");
    expect((await answer(p, reg.id)).status).toBe(204);

    let answeredAt = 0;
    const alarmAt = await runInDurableObject(registrationObject(reg.id), async (object: RegistrationObject, state) => {
      // The projection's send waits until another answer has been stored (the object serves it meanwhile).
      const real = object["env"] as Env;
      const held: Env = {
        ...real,
        PROJECTIONS: {
          ...real.PROJECTIONS,
          sendBatch: async (messages) => {
            answeredAt = Date.now();
            expect((await answer(p, reg.id)).status).toBe(204);
            return real.PROJECTIONS.sendBatch(messages);
          },
        } as Env["PROJECTIONS"],
      };
      Object.assign(object, { env: held });
      try {
        await object.alarm(); // contributes (the first time: due), so the next contribution is a cadence away
      } finally {
        Object.assign(object, { env: real });
      }
      return state.storage.getAlarm();
    });
    expect(answeredAt).toBeGreaterThan(0);
    expect(alarmAt).not.toBeNull();
    expect(alarmAt as number).toBeLessThanOrEqual(answeredAt + PROJECTION_DELAY_MS + 1_000);
  });

  it("a run that publishes the projection and leaves evidence for a later contribution re-arms the alarm for it before its sends (one storage commit with its writes)", async () => {
    const p = await newPartner();
    const li = await createInstance(p);
    const reg = await register(p, (await createAccount(p)).id, li.id, "learner");
    expect((await answer(p, reg.id)).status).toBe(204);
    await runInDurableObject(registrationObject(reg.id), (object: RegistrationObject) => object.alarm()); // the first contribution (due at once)
    expect((await answer(p, reg.id)).status).toBe(204); // its evidence waits for the next contribution, a cadence later

    const { duringSend, after, contributedAt } = await runInDurableObject(registrationObject(reg.id), async (object: RegistrationObject, state) => {
      const real = object["env"] as Env;
      let duringSend: number | null | undefined;
      const watched: Env = {
        ...real,
        PROJECTIONS: {
          ...real.PROJECTIONS,
          sendBatch: async (messages) => {
            duringSend = await state.storage.getAlarm();
            return real.PROJECTIONS.sendBatch(messages);
          },
        } as Env["PROJECTIONS"],
      };
      Object.assign(object, { env: watched });
      try {
        await state.storage.deleteAlarm(); // as the runtime does when the alarm fires
        await object.alarm();
      } finally {
        Object.assign(object, { env: real });
      }
      return { duringSend, after: await state.storage.getAlarm(), contributedAt: state.storage.kv.get<number>("population_contributed_at") ?? 0 };
    });
    expect(contributedAt).toBeGreaterThan(0);
    // (a graph nobody has answered is young: its cadence is the young one)
    expect(duringSend).toBe(contributedAt + POPULATION_CADENCE.youngMs);
    expect(after).toBe(contributedAt + POPULATION_CADENCE.youngMs);
  });
});
