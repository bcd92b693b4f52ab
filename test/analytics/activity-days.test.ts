import { beforeAll, describe, expect, it } from "vitest";
import type { Schemas } from "../../client";
import { type ActivityEvent, activityByDay, localDay, summarizeActivity } from "../../src/analytics";
import { freshAdminToken, type Json } from "../support/api";
import { storeActivityAsOneValue, storedActivity } from "../support/registration-object";
import { type TutoringWorld, tutoringWorld } from "../support/tutoring";
import { api } from "../support/typed-api";

/**
 * The registration keeps its activity summary as one stored value per day (analytics-store.ts): it
 * must equal the summary of the whole log whatever order the events came in, and an object that
 * stored the summary in the earlier single value must answer the same and keep counting.
 */

const DAY = 86_400_000;
const now = Date.now();
const today = localDay(now);
const label = (day: number) => new Date(day * DAY).toISOString().slice(0, 10);

/** Three answers a day, 4 minutes apart (one without a duration), on 12 days ending an hour ago at the latest. */
const sent: { endMs: number; durationMs?: number }[] = [];
for (let d = 11; d >= 0; d--) {
  const start = Math.min(now - 3_600_000, (today - d) * DAY + 9 * 3_600_000);
  for (let i = 0; i < 3; i++) sent.push({ endMs: start + i * 240_000, ...(i === 1 ? {} : { durationMs: 90_000 }) });
}

let w: TutoringWorld;
const event = (e: { endMs: number; durationMs?: number }, i: number) => ({
  type: "graded-events" as const,
  module_id: i % 2 ? "mref-a1" : "mref-b1",
  is_correct: i % 3 !== 0,
  interaction_end_time: new Date(e.endMs).toISOString(),
  ...(e.durationMs === undefined ? {} : { duration: e.durationMs }),
});

async function post(events: Schemas["BatchEvents"]["events"]): Promise<void> {
  const res = await api("POST", "/v0/registrations/{id}/batch-events", {
    token: await freshAdminToken(w.p),
    body: { events: [...events].reverse() },
    path: { id: w.reg.id },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(204);
}

async function activeTime(firstDay: number, lastDay: number): Promise<[number, number][]> {
  const res = await api("POST", "/v0/registrations/{id}/metrics/active-time/rows", {
    token: w.p.adminToken,
    body: { start_date: label(firstDay), end_date: label(lastDay) },
    path: { id: w.reg.id },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data[0]!.values.map((v: Json) => [v.active_time_ms, v.time_spent_ms]);
}

const wholeLog = () => summarizeActivity(sent.map((e): ActivityEvent => ({ ...e, graded: true })));
const expected = (firstDay: number, lastDay: number) => activityByDay(wholeLog(), firstDay, lastDay).map((d) => [d.active_time_ms, d.time_spent_ms]);

async function expectRowsOfWholeLog(): Promise<void> {
  expect(await activeTime(today - 13, today - 7)).toEqual(expected(today - 13, today - 7));
  expect(await activeTime(today - 6, today)).toEqual(expected(today - 6, today));
  expect(await storedActivity(w.reg.id)).toEqual(wholeLog());
}

beforeAll(async () => {
  w = await tutoringWorld();
  const events = sent.map(event);
  const late = events.splice(10, 1); // 8 days back, sent after the rest: older than the latest event
  await post(events.slice(0, 20)); // 11..5 days back, one batch
  await post(events.slice(20)); // 5..0 days back
  await post(late);
});

describe("activity kept per day", () => {
  it("equals the summary of the whole log, an out-of-order event included", async () => {
    await expectRowsOfWholeLog();
    expect((await activeTime(today - 8, today - 8))[0]?.[0]).toBeGreaterThan(0);
  });

  it("an object that stored the summary as one value answers the same, and keeps counting", async () => {
    await storeActivityAsOneValue(w.reg.id);
    await expectRowsOfWholeLog();
    const next = { endMs: Date.now() - 60_000, durationMs: 30_000 };
    sent.push(next);
    await post([event(next, sent.length)]);
    await expectRowsOfWholeLog();
  });
});
