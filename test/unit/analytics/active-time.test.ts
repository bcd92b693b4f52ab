import { describe, expect, it } from "vitest";
import {
  type ActivityEvent,
  activityByDay,
  addActivity,
  emptyActivitySummary,
  eventTimes,
  IDLE_CAP_MS,
  localDay,
  MAX_EVENT_ACTIVE_MS,
  SUMMARY_RETENTION_DAYS,
  summarizeActivity,
  summaryCovers,
} from "../../../src/analytics/active-time";

const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 2, 9, 0); // 2026-11-02 09:00Z (a Monday)

describe("active time per event", () => {
  it("an event without a duration counts the gap to the previous event, capped", () => {
    expect(eventTimes({ endMs: T0 + 2 * MIN }, T0).active).toBe(2 * MIN);
    expect(eventTimes({ endMs: T0 + 40 * MIN }, T0).active).toBe(IDLE_CAP_MS);
    expect(eventTimes({ endMs: T0 }, 0).active).toBe(IDLE_CAP_MS); // first event: the cap
  });

  it("a reported duration counts, but never more than the gap since the previous event nor the per-event cap", () => {
    expect(eventTimes({ endMs: T0 + 10 * MIN, durationMs: 3 * MIN }, T0).active).toBe(3 * MIN);
    expect(eventTimes({ endMs: T0 + 2 * MIN, durationMs: 5 * MIN }, T0).active).toBe(2 * MIN); // overlap not counted twice
    expect(eventTimes({ endMs: T0 + 5 * 3600_000, durationMs: 3 * 3600_000 }, T0).active).toBe(MAX_EVENT_ACTIVE_MS);
  });

  it("time spent counts the whole gap inside a session (idle moments included) and is never below active time", () => {
    const inSession = eventTimes({ endMs: T0 + 20 * MIN }, T0);
    expect(inSession).toEqual({ active: IDLE_CAP_MS, spent: 20 * MIN });
    const newSession = eventTimes({ endMs: T0 + 3 * 3600_000, durationMs: 4 * MIN }, T0);
    expect(newSession).toEqual({ active: 4 * MIN, spent: 4 * MIN });
  });
});

describe("active time per day", () => {
  const events: ActivityEvent[] = [
    { endMs: T0, graded: true }, // 5 min (first)
    { endMs: T0 + 2 * MIN, graded: true }, // 2 min
    { endMs: T0 + 3 * MIN, durationMs: 30_000 }, // 0.5 min, ungraded
    { endMs: T0 + 63 * MIN, graded: true }, // gap 60 min: new session, 5 min
    { endMs: Date.UTC(2026, 10, 2, 23, 50), durationMs: 4 * MIN, graded: true }, // 23:50Z Monday
    { endMs: Date.UTC(2026, 10, 3, 0, 10), graded: true }, // 00:10Z Tuesday, gap 20 min → 5 active, 20 spent
  ];
  const summary = summarizeActivity(events);

  it("sums per UTC day", () => {
    const d = activityByDay(summary, localDay(T0), localDay(T0) + 1);
    expect(d.map((x) => x.date)).toEqual(["2026-11-02", "2026-11-03"]);
    expect(d[0]!.active_time_ms).toBe((5 + 2 + 0.5 + 5 + 4) * MIN);
    expect(d[0]!.time_spent_ms).toBe((5 + 2 + 1 + 5 + 4) * MIN);
    expect(d[0]!.graded).toBe(4);
    expect(d[1]).toEqual({ date: "2026-11-03", active_time_ms: 5 * MIN, time_spent_ms: 20 * MIN, events: 1, graded: 1 });
  });

  it("buckets by the requested offset: the 23:50Z event is on Tuesday in UTC+01:00, both late events on Monday in UTC−05:00", () => {
    const plus1 = activityByDay(summary, localDay(T0, 60), localDay(T0, 60) + 1, 60);
    expect(plus1[1]!.active_time_ms).toBe((4 + 5) * MIN);
    const minus5 = activityByDay(summary, localDay(T0, -300), localDay(T0, -300) + 1, -300);
    expect(minus5[0]!.active_time_ms).toBe((5 + 2 + 0.5 + 5 + 4 + 5) * MIN);
    expect(minus5[1]!.active_time_ms).toBe(0);
    const half = activityByDay(summary, localDay(T0, 330), localDay(T0, 330) + 1, 330); // +05:30: 23:50Z is 05:20 Tuesday
    expect(half[1]!.events).toBe(2);
    expect(() => activityByDay(summary, 0, 1, 7)).toThrow();
  });

  it("at most 7 days per request", () => {
    expect(activityByDay(summary, 100, 106)).toHaveLength(7);
    expect(() => activityByDay(summary, 100, 107)).toThrow();
  });

  it("the incremental summary equals the summary of the log; an older event is refused (rebuild from the log)", () => {
    const s = emptyActivitySummary();
    for (const e of events) expect(addActivity(s, e)).toBe(true);
    expect(s).toEqual(summary);
    expect(addActivity(s, { endMs: T0 + MIN })).toBe(false);
    expect(s).toEqual(summary);
    const rebuilt = summarizeActivity([...events, { endMs: T0 + MIN }].reverse());
    expect(rebuilt.total[2]).toBe(events.length + 1);
  });

  it("stays bounded: quarter hours older than the retention are pruned", () => {
    const s = emptyActivitySummary();
    for (let d = 0; d < 400; d++) addActivity(s, { endMs: T0 + d * 86_400_000, graded: true });
    expect(Object.keys(s.buckets).length).toBeLessThanOrEqual(SUMMARY_RETENTION_DAYS + 1);
    expect(s.total[2]).toBe(400);
    expect(summaryCovers(s, localDay(T0 + 399 * 86_400_000) - 10)).toBe(true);
    expect(summaryCovers(s, localDay(T0))).toBe(false);
  });
});
