import { beforeAll, describe, expect, it } from "vitest";
import { createAccount, freshAdminToken, type Json, type Partner, register } from "../support/api";
import { assignGoal } from "../support/goals";
import { rawCall } from "../support/raw-call";
import { answers, type TutoringWorld, tutoringWorld } from "../support/tutoring";
import { api } from "../support/typed-api";

/** The metrics rows (docs/analytics.md "Metrics rows") and learners to watch, through the Worker. */

let w: TutoringWorld;
const rows = (metric: string, body: Json, token?: string) =>
  rawCall("POST", `/v0/learning-instances/${w.li.id}/metrics/${metric}/rows`, { token: token ?? w.p.adminToken, body });
const row = (regId: string, metric: string, body: Json) =>
  rawCall("POST", `/v0/registrations/${regId}/metrics/${metric}/rows`, { token: w.p.adminToken, body });
const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  w = await tutoringWorld({ name: "Reach C", adaptive_behavior: "practice", targets: { include: ["lref-c"] }, timing: { relative_deadline: "P2W" } });
  await answers(w, [
    ["mref-a1", true],
    ["mref-b1", true],
    ["mref-c1", false],
    ["mref-c2", true],
    ["mref-c1", true],
  ]);
});

describe("metrics rows", () => {
  it("proficiency: goal columns then objective columns, a value inside its credible interval, the evidence count", async () => {
    const res = await rows("proficiency", { goal_ids: [w.goalId], learning_objective_ids: ["lref-c", "lref-d"] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.column_headers).toEqual([w.goalId, "lref-c", "lref-d"]);
    expect(res.body.query).toMatchObject({ registration_offset: 0, registrations_per_page: 30 });
    const [goal, c, d] = res.body.data[0].values;
    for (const v of [goal, c, d]) {
      expect(v.lower).toBeLessThanOrEqual(v.proficiency);
      expect(v.proficiency).toBeLessThanOrEqual(v.upper);
      expect(v.upper).toBeLessThan(1);
    }
    expect(c.evidence).toBe(3);
    expect(d.evidence).toBe(0);
    // never answered: the prior, so a wider interval
    expect(d.upper - d.lower).toBeGreaterThan(c.upper - c.lower);
    // objectives alone are a valid request; neither is not
    expect((await rows("proficiency", { learning_objective_ids: ["lref-a"] })).status).toBe(200);
    expect((await rows("proficiency", {})).status).toBe(400);
  });

  it("expected-score: a 95% interval, estimated with evidence and insufficient_data without", async () => {
    const res = await row(w.reg.id, "expected-score", { goal_ids: [w.goalId] });
    expect(res.status).toBe(200);
    expect(res.body.next).toBeUndefined();
    const v = res.body.data[0].values[0];
    expect(v.status).toBe("estimated");
    expect(v.lower).toBeLessThanOrEqual(v.expected_score);
    expect(v.expected_score).toBeLessThanOrEqual(v.upper);
    const fresh = await register(w.p, (await createAccount(w.p)).id, w.li.id, "learner");
    await assignGoal(w.p, w.li.id, w.goalId, fresh.id);
    const none = await row(fresh.id, "expected-score", { goal_ids: [w.goalId] });
    expect(none.body.data[0].values[0].status).toBe("insufficient_data");
  });

  it("readiness-forecast: a probability and a projected date for an assigned goal with a deadline", async () => {
    const res = await row(w.reg.id, "readiness-forecast", { goal_ids: [w.goalId] });
    const v = res.body.data[0].values[0];
    expect(v.probability_ready_by_end).toBeGreaterThanOrEqual(0);
    expect(v.probability_ready_by_end).toBeLessThanOrEqual(1);
    expect(Date.parse(v.projected_completion)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("active-time: one column per calendar day (at most 7), durations summed per day", async () => {
    const res = await row(w.reg.id, "active-time", { start_date: today(), end_date: today() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.column_headers).toEqual([today()]);
    const v = res.body.data[0].values[0];
    expect(v.active_time_ms).toBeGreaterThan(0);
    expect(v.time_spent_ms).toBeGreaterThanOrEqual(v.active_time_ms);
    const week = await rows("active-time", { start_date: "2026-01-01", end_date: "2026-01-07" });
    expect(week.body.column_headers).toHaveLength(7);
    expect(week.body.data.every((r: Json) => r.values.every((x: Json) => x.active_time_ms === 0))).toBe(true);
    expect((await rows("active-time", { start_date: "2026-01-01", end_date: "2026-01-08" })).status).toBe(400);
    expect((await rows("active-time", { start_date: "2026-01-07", end_date: "2026-01-01" })).status).toBe(400);
    expect((await rows("active-time", { start_date: "2026-01-01", end_date: "2026-01-02", utc_offset_minutes: 7 })).status).toBe(400);
  });

  it("pages by 30 at most, and refuses unknown goals (422)", async () => {
    expect((await rows("expected-score", { goal_ids: [w.goalId], registrations_per_page: 31 })).status).toBe(400);
    const missing = await rows("expected-score", { goal_ids: [crypto.randomUUID()] });
    expect(missing.status).toBe(422);
    expect(missing.body.details[0].path).toBe("body.goal_ids[0]");
  });
});

describe("POST /v0/learning-instances/{id}/metrics/groups (learners to watch)", () => {
  let p: Partner;
  let world: TutoringWorld;
  const regs: Record<string, Json> = {};
  beforeAll(async () => {
    p = w.p;
    world = await tutoringWorld({ name: "A soon", adaptive_behavior: "practice", targets: { include: ["lref-c"] }, timing: { relative_deadline: "PT2H" } }, p);
    const learner = async (name: string) => {
      const reg = await register(p, (await createAccount(p)).id, world.li.id, "learner");
      await assignGoal(p, world.li.id, world.goalId, reg.id);
      regs[name] = reg;
      return { ...world, reg } as TutoringWorld;
    };
    await learner("idle"); // not started
    const stuck = await learner("stuck");
    await answers(stuck, [
      ["mref-c1", false],
      ["mref-c2", false],
      // (the engine calls a learner stuck only once even a slow learner could not explain the failures: docs/recommendation.md "Decisions", the slow tail)
      ...Array.from({ length: 100 }, (_, i): [string, boolean] => [i % 2 ? "mref-b1" : "mref-b2", false]),
    ]);
    const away = await learner("away");
    // answers two weeks ago, nothing since
    const old = Date.now() - 14 * 86_400_000;
    const events = [0, 1, 2].map((i) => ({
      type: "graded-events" as const,
      module_id: "mref-b1",
      is_correct: true,
      interaction_end_time: new Date(old + i * 60_000).toISOString(),
    }));
    const res = await api("POST", "/v0/registrations/{id}/batch-events", {
      token: await freshAdminToken(p),
      body: { events: events.reverse() },
      path: { id: away.reg.id },
    });
    expect(res.status).toBe(204);
  });

  it("names the stuck, inactive and not-started learners per goal, each group with a reason for a teacher", async () => {
    const res = await api("POST", "/v0/learning-instances/{id}/metrics/groups", {
      token: p.adminToken,
      body: { goal_ids: [world.goalId] },
      path: { id: world.li.id },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const group = (name: string) => res.body.groups.find((g: Json) => g.group === name)!;
    expect(group("not_started").registration_ids).toContain(regs.idle!.id);
    expect(group("stuck").registration_ids).toEqual([regs.stuck!.id]);
    expect(group("inactive").registration_ids).toEqual([regs.away!.id]);
    for (const g of res.body.groups) {
      expect(g.goal_id).toBe(world.goalId);
      expect(g.reason.length).toBeGreaterThan(20);
    }
    // a two-hour deadline with the goal far from done: behind schedule
    expect(group("behind_schedule")?.registration_ids ?? []).toContain(regs.stuck!.id);
    expect(
      (await api("POST", "/v0/learning-instances/{id}/metrics/groups", { token: p.adminToken, body: { goal_ids: [] }, path: { id: world.li.id } })).status,
    ).toBe(400);
  });

  it("pages by learners: every page's groups together are the whole class's, `next` until the last page", async () => {
    const watch = (body: Json) =>
      api("POST", "/v0/learning-instances/{id}/metrics/groups", {
        token: p.adminToken,
        body: { goal_ids: [world.goalId], ...body },
        path: { id: world.li.id },
      });
    const whole = (await watch({})).body;
    expect(whole.next).toBeUndefined();
    const paged = new Map<string, string[]>();
    let offset: number | undefined = 0;
    let pages = 0;
    while (offset !== undefined) {
      const res = await watch({ registration_offset: offset, registrations_per_page: 1 });
      expect(res.status).toBe(200);
      for (const g of res.body.groups) paged.set(g.group, [...(paged.get(g.group) ?? []), ...g.registration_ids]);
      offset = res.body.next?.registration_offset;
      if (offset !== undefined) expect(res.body.next!.registrations_per_page).toBe(1);
      pages++;
    }
    // the world's learner and the three added ones
    expect(pages).toBe(4);
    expect(Object.fromEntries(paged)).toEqual(Object.fromEntries(whole.groups.map((g: Json) => [g.group, g.registration_ids])));
    expect((await watch({ registrations_per_page: 501 })).status).toBe(400);
  });
});
