import { createScheduledController, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { AccountExportSchema } from "../../src/schemas/data-lifecycle";
import { createAccount, createInstance, freshAdminToken, type Json, newPartner, type Partner, register } from "../support/api";
import { assignGoal, createGoal } from "../support/goals";
import { rawCall } from "../support/raw-call";
import { eventCount, registrationObject } from "../support/registration-object";
import { api } from "../support/typed-api";

/**
 * Retention (docs/privacy.md "Retention"): the partner setting `event_retention_days`;
 * the scheduled job removes events received before the horizon from the registrations' logs once
 * folded into the learner state; the state, recommendations and analytics keep working.
 */

const DAY_MS = 86_400_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The Worker's scheduled handler, as the cron trigger runs it at `whenMs`. */
async function scheduledAt(whenMs: number): Promise<void> {
  await worker.scheduled(createScheduledController({ scheduledTime: new Date(whenMs), cron: "* * * * *" }), env as Env);
}

async function settings(p: Partner, body?: unknown) {
  return rawCall(body === undefined ? "GET" : "PUT", "/v0/partner/settings", { token: await freshAdminToken(p), body });
}

async function postAnswers(p: Partner, regId: string, n: number, first: number): Promise<void> {
  const start = Date.now() - 2 * 3600_000;
  const events = Array.from({ length: n }, (_, k) => ({
    type: "graded-events" as const,
    module_id: ["mref-a1", "mref-b1", "mref-c1"][(first + k) % 3]!,
    interaction_end_time: new Date(start + (first + k) * 60_000).toISOString(),
    is_correct: (first + k) % 4 !== 0,
  })).reverse();
  const res = await api("POST", "/v0/registrations/{id}/batch-events", { token: await freshAdminToken(p), body: { events }, path: { id: regId } });
  expect(res.status).toBe(204);
}

/** What a partner and its instructors read about a learner: recommendation, status, proficiency with intervals. */
async function whatTheyRead(p: Partner, li: Json, reg: Json, goalId: string) {
  const token = await freshAdminToken(p);
  const rec = await api("GET", "/v0/registrations/{id}/recommendation", { token, path: { id: reg.id }, query: { goal_id: goalId } });
  const status = await api("POST", "/v0/learning-instances/{id}/metrics/status-and-progress", { token, body: { goal_ids: [goalId] }, path: { id: li.id } });
  const proficiency = await api("POST", "/v0/registrations/{id}/metrics/proficiency/rows", {
    token,
    body: { learning_objective_ids: ["lref-a", "lref-b", "lref-c"] },
    path: { id: reg.id },
  });
  expect([rec.status, status.status, proficiency.status]).toEqual([200, 200, 200]);
  return { recommendation: rec.body, status: status.body, proficiency: proficiency.body };
}

describe("event retention", () => {
  it("the setting is read and written by the partner admin; a bad value is refused and changes nothing", async () => {
    const p = await newPartner("Retention settings partner");
    expect((await settings(p)).body).toEqual({ event_retention_days: null });
    expect((await settings(p, { event_retention_days: 365 })).body).toEqual({ event_retention_days: 365 });
    for (const bad of [0, -1, 1.5, "30", 36_501]) {
      const res = await settings(p, { event_retention_days: bad });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([expect.objectContaining({ path: "body.event_retention_days" })]);
    }
    expect((await settings(p, {})).status).toBe(400);
    expect((await settings(p)).body).toEqual({ event_retention_days: 365 });
    expect((await settings(p, { event_retention_days: null })).body).toEqual({ event_retention_days: null });
  });

  it("the scheduled job removes the events received before the horizon; the state, recommendation, status and proficiency stay the same and keep moving", async () => {
    const p = await newPartner("Retention partner");
    const keeper = await newPartner("Partner that keeps everything");
    const li = await createInstance(p);
    const reg = await register(p, (await createAccount(p)).id, li.id, "learner");
    const goal = await createGoal(p, li.id);
    await assignGoal(p, li.id, goal.id, reg.id);
    const kept = await register(keeper, (await createAccount(keeper)).id, (await createInstance(keeper)).id, "learner");
    await postAnswers(keeper, kept.id, 30, 0);

    await postAnswers(p, reg.id, 30, 0);
    await sleep(20);
    const horizon = Date.now();
    await sleep(20);
    await postAnswers(p, reg.id, 12, 30);
    expect(await eventCount(reg.id)).toBe(42);
    const before = await whatTheyRead(p, li, reg, goal.id);

    // nothing happens until the partner sets a retention
    await scheduledAt(horizon + 30 * DAY_MS);
    expect(await eventCount(reg.id)).toBe(42);

    expect((await settings(p, { event_retention_days: 30 })).status).toBe(200);
    await scheduledAt(horizon + 30 * DAY_MS);
    expect(await eventCount(reg.id)).toBe(12); // the first 30 went, the 12 received after the horizon stay
    expect(await eventCount(kept.id)).toBe(30); // another partner's log is untouched
    const audit = await registrationObject(reg.id).auditState();
    expect(audit).toEqual({ event_count: 12, state_matches_replay: true }); // the replay starts from the kept state
    expect(await whatTheyRead(p, li, reg, goal.id)).toEqual(before);

    // the export says how many events retention removed
    const exported = AccountExportSchema.parse(
      (await api("GET", "/v0/accounts/{account_id}/export", { token: await freshAdminToken(p), path: { account_id: reg.account_id } })).body,
    ).registrations[0];
    expect(exported?.events).toHaveLength(12);
    expect(exported?.events_removed_by_retention).toBe(30);

    // new answers apply on top of the kept state, and the replay still agrees
    await postAnswers(p, reg.id, 6, 42);
    const after = await whatTheyRead(p, li, reg, goal.id);
    expect(after.proficiency).not.toEqual(before.proficiency);
    expect(await registrationObject(reg.id).auditState()).toEqual({ event_count: 18, state_matches_replay: true });

    // a later pass removes the rest
    await scheduledAt(Date.now() + 31 * DAY_MS + 2 * 3600_000);
    expect(await eventCount(reg.id)).toBe(0);
    expect(await registrationObject(reg.id).auditState()).toEqual({ event_count: 0, state_matches_replay: true });
    expect(await whatTheyRead(p, li, reg, goal.id)).toEqual(after);
  });
});
