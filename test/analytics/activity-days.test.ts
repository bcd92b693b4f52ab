import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { type ActivityEvent, activityByDay, localDay, summarizeActivity } from "../../src/analytics";
import { call, type Json } from "../support/api";
import { freshAdminToken, type TutoringWorld, tutoringWorld } from "../support/tutoring";

/**
 * The registration keeps its activity summary as one stored value per day (analytics-store.ts): the
 * active-time rows must equal the summary of the whole log, whatever order the events came in, and
 * an object that stored the summary in the earlier single value must answer the same.
 */

const DAY = 86_400_000;
const now = Date.now();
const today = localDay(now);
const label = (day: number) => new Date(day * DAY).toISOString().slice(0, 10);

/** Three answers a day, 4 minutes apart (one without a duration), on 12 days ending today. */
const sent: { endMs: number; durationMs?: number }[] = [];
for (let d = 11; d >= 0; d--) {
  const start = Math.min(now - 3_600_000, (today - d) * DAY + 9 * 3_600_000);
  for (let i = 0; i < 3; i++) sent.push({ endMs: start + i * 240_000, ...(i === 1 ? {} : { durationMs: 90_000 }) });
}

let w: TutoringWorld;
const event = (e: { endMs: number; durationMs?: number }, i: number) => ({
  type: "graded-events",
  module_id: i % 2 ? "mref-a1" : "mref-b1",
  is_correct: i % 3 !== 0,
  interaction_end_time: new Date(e.endMs).toISOString(),
  ...(e.durationMs === undefined ? {} : { duration: e.durationMs }),
});

async function post(events: Json[]): Promise<void> {
  const res = await call("POST", `/v0/registrations/${w.reg.id}/batch-events`, { token: await freshAdminToken(w.p), body: { events: [...events].reverse() } });
  expect(res.status, JSON.stringify(res.body)).toBe(204);
}

async function activeTime(firstDay: number, lastDay: number): Promise<[number, number][]> {
  const res = await call("POST", `/v0/registrations/${w.reg.id}/metrics/active-time/rows`, {
    token: w.p.adminToken,
    body: { start_date: label(firstDay), end_date: label(lastDay) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data[0].values.map((v: Json) => [v.active_time_ms, v.time_spent_ms]);
}

function expected(firstDay: number, lastDay: number): [number, number][] {
  const log: ActivityEvent[] = sent.map((e) => ({ ...e, graded: true }));
  return activityByDay(summarizeActivity(log), firstDay, lastDay).map((d) => [d.active_time_ms, d.time_spent_ms]);
}

beforeAll(async () => {
  w = await tutoringWorld();
  const events = sent.map(event);
  const late = events.splice(10, 1); // day 8 back, sent after the rest: older than the latest event
  await post(events.slice(0, 20)); // days 11..5 back, one batch
  await post(events.slice(20)); // days 5..0 back
  await post(late);
});

describe("activity kept per day", () => {
  it("active-time rows equal the summary of the whole log, an out-of-order event included", async () => {
    expect(await activeTime(today - 13, today - 7)).toEqual(expected(today - 13, today - 7));
    expect(await activeTime(today - 6, today)).toEqual(expected(today - 6, today));
    expect((await activeTime(today - 8, today - 8))[0]?.[0]).toBeGreaterThan(0);
  });

  it("an object that stored the summary as one value (before the split) answers the same", async () => {
    const stub = env.REGISTRATIONS.get(env.REGISTRATIONS.idFromName(w.reg.id));
    await runInDurableObject(stub, (_, state) => {
      const kv = state.storage.kv;
      const buckets: Record<string, unknown> = {};
      for (const [key, day] of kv.list<Record<string, unknown>>({ prefix: "activity_day:" })) {
        Object.assign(buckets, day);
        kv.delete(key);
      }
      const head = kv.get<Record<string, unknown>>("activity_head");
      expect(head).toBeDefined();
      expect(Object.keys(buckets).length).toBeGreaterThanOrEqual(12);
      kv.delete("activity_head");
      kv.put("activity", { ...head, buckets });
    });
    expect(await activeTime(today - 13, today - 7)).toEqual(expected(today - 13, today - 7));
    expect(await activeTime(today - 6, today)).toEqual(expected(today - 6, today));
    await runInDurableObject(stub, (_, state) => {
      expect(state.storage.kv.get("activity")).toBeUndefined();
      expect([...state.storage.kv.list({ prefix: "activity_day:" })].length).toBe(12);
    });
  });
});
