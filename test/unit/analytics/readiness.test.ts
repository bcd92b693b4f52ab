import { describe, expect, it } from "vitest";
import { type ActivityEvent, summarizeActivity } from "../../../src/analytics/active-time";
import { type ReadinessInput, readinessForecast } from "../../../src/analytics/readiness";
import { groupWatchFlags, type WatchInput, watchFlags } from "../../../src/analytics/watch";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 20, 12, 0);

/** 6 graded answers on every other day for the last 14 days. */
const steady: ActivityEvent[] = [];
for (let d = 14; d >= 1; d -= 2) for (let i = 0; i < 6; i++) steady.push({ endMs: NOW - d * DAY + i * 60_000, graded: true });
const activity = summarizeActivity(steady);

const base: ReadinessInput = {
  nowMs: NOW,
  deadlineMs: NOW + 7 * DAY,
  complete: false,
  workRemaining: { expected: 12 },
  assignedAtMs: NOW - 14 * DAY,
  activity,
};

describe("readiness forecast", () => {
  it("is monotone in the deadline", () => {
    let prev = -1;
    for (let days = 0; days <= 60; days += 0.5) {
      const p = readinessForecast({ ...base, deadlineMs: NOW + days * DAY }).probability_ready_by_end!;
      expect(p).toBeGreaterThanOrEqual(prev);
      prev = p;
    }
    expect(prev).toBeGreaterThan(0.95);
    expect(readinessForecast({ ...base, deadlineMs: NOW - DAY }).probability_ready_by_end).toBe(0);
  });

  it("decreases with more work remaining and projects the completion at the observed pace", () => {
    const small = readinessForecast({ ...base, workRemaining: { expected: 5 } });
    const large = readinessForecast({ ...base, workRemaining: { expected: 40 } });
    expect(small.probability_ready_by_end!).toBeGreaterThan(large.probability_ready_by_end!);
    // 42 answers on 7 of 14 days: ~3 a day, so 12 items ≈ 4 days.
    const days = (Date.parse(readinessForecast(base).projected_completion!) - NOW) / DAY;
    expect(days).toBeGreaterThan(3);
    expect(days).toBeLessThan(6);
  });

  it("a learner who has not started after two weeks is unlikely to be ready, and has no projected date", () => {
    const idle = readinessForecast({ ...base, activity: summarizeActivity([]) });
    expect(idle.projected_completion).toBeNull();
    expect(idle.probability_ready_by_end!).toBeLessThan(readinessForecast(base).probability_ready_by_end!);
  });

  it("cannot say without a deadline or a work-remaining estimate; complete goals are ready", () => {
    expect(readinessForecast({ ...base, deadlineMs: null }).probability_ready_by_end).toBeNull();
    expect(readinessForecast({ ...base, workRemaining: null })).toMatchObject({ probability_ready_by_end: null, projected_completion: null });
    const done = readinessForecast({ ...base, complete: true, completedAtMs: NOW - DAY });
    expect(done).toMatchObject({ probability_ready_by_end: 1, projected_completion: new Date(NOW - DAY).toISOString() });
  });
});

describe("learners to watch", () => {
  const w: WatchInput = {
    registrationId: "r1",
    goalId: "g1",
    nowMs: NOW,
    status: "in_progress",
    progress: 0.5,
    eventsInScope: 10,
    lastActivityMs: NOW - DAY,
    assignedAtMs: NOW - 10 * DAY,
    deadlineMs: NOW + 10 * DAY,
  };

  it("not_started, inactive, behind_schedule with readable details; complete goals are never flagged", () => {
    expect(watchFlags(w)).toEqual([]);
    expect(watchFlags({ ...w, eventsInScope: 0, status: "no_work" })[0]).toMatchObject({
      group: "not_started",
      detail: "Has not worked on this goal yet (assigned 10 days ago).",
    });
    expect(watchFlags({ ...w, lastActivityMs: NOW - 9 * DAY })[0]).toMatchObject({ group: "inactive", detail: "No activity for 9 days (last on 2026-11-11)." });
    expect(watchFlags({ ...w, progress: 0.1 })[0]).toMatchObject({ group: "behind_schedule", detail: "Progress 10% with 50% of the time to 2026-11-30 gone." });
    const unlikely = readinessForecast({ ...base, workRemaining: { expected: 30 }, deadlineMs: NOW + DAY });
    expect(watchFlags({ ...w, readiness: unlikely })[0]!.detail).toMatch(
      /^Unlikely to finish by 2026-11-30: \d+% chance at the current pace, about \d\.\d answers a day lately\.$/,
    );
    expect(watchFlags({ ...w, status: "complete", progress: 0, lastActivityMs: NOW - 30 * DAY })).toEqual([]);
  });

  it("groups per goal and group, in creation order, with the policy's flags", () => {
    const flags = [
      ...watchFlags({ ...w, registrationId: "r1", eventsInScope: 0 }),
      { registrationId: "r2", goalId: "g1", group: "stuck" as const },
      ...watchFlags({ ...w, registrationId: "r3", eventsInScope: 0 }),
      ...watchFlags({ ...w, registrationId: "r4", goalId: "g2", lastActivityMs: NOW - 8 * DAY }),
    ];
    const rows = groupWatchFlags(["g2", "g1"], flags);
    expect(rows.map((r) => [r.goal_id, r.group, r.registration_ids])).toEqual([
      ["g2", "inactive", ["r4"]],
      ["g1", "stuck", ["r2"]],
      ["g1", "not_started", ["r1", "r3"]],
    ]);
    for (const r of rows) expect(r.reason.length).toBeGreaterThan(10);
  });
});
