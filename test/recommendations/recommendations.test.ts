import { describe, expect, it } from "vitest";
import { INTENTS_BY_BEHAVIOR } from "../../src/policy";
import { RecommendationSchema } from "../../src/schemas/recommendations";
import { freshAdminToken } from "../support/api";
import { assignGoal } from "../support/goals";
import { rawCall } from "../support/raw-call";
import { answer, answers, recommendation, tutoringWorld } from "../support/tutoring";
import { api } from "../support/typed-api";

/** Spec 2.4 / 4.5 through the Worker: the demo graph is lref-a <- lref-b <- lref-c (c needs b needs a), lref-a <- lref-d. */

describe("GET /v0/registrations/{id}/recommendation", () => {
  it("keeps its recommendation_id while no event changes the learner state, and changes it after one", async () => {
    const w = await tutoringWorld();
    const first = await recommendation(w);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const rec = RecommendationSchema.parse(first.body);
    // requesting focuses the goal: the first answer already shows it
    expect(rec).toMatchObject({ status: "in progress", focus_state: "focused", stuck: false });
    expect(rec.module_ids.length).toBeGreaterThan(0);
    expect(rec.module_ids.length).toBeLessThanOrEqual(10);
    expect(new Set(rec.module_ids).size).toBe(rec.module_ids.length);
    expect(Number.isSafeInteger(rec.recommendation_id)).toBe(true);
    // asked again, with other flags, and after an event that does not move the model: the same id
    expect((await recommendation(w)).body.recommendation_id).toBe(rec.recommendation_id);
    expect((await recommendation(w, { justifications: "true", continued_recommendations: "true" })).body.recommendation_id).toBe(rec.recommendation_id);
    const followed = await api("POST", "/v0/registrations/{id}/recommendation-followed-events", {
      token: await freshAdminToken(w.p),
      body: { module_id: rec.module_ids[0]!, time_followed: new Date(Date.now() - 1000).toISOString(), recommendation_id: rec.recommendation_id },
      path: { id: w.reg.id },
    });
    expect(followed.status).toBe(204);
    expect((await recommendation(w)).body.recommendation_id).toBe(rec.recommendation_id);
    // an answer changes the learner state: a new recommendation under a new id
    await answer(w, rec.module_ids[0] as string, true);
    const next = await recommendation(w);
    expect(next.body.recommendation_id).not.toBe(rec.recommendation_id);
    // never the item just answered first
    expect(next.body.module_ids[0]).not.toBe(rec.module_ids[0]);
  });

  it("is ready with no modules once the goal is complete, and keeps recommending with continued_recommendations", async () => {
    const w = await tutoringWorld();
    const cycle: [string, boolean][] = ["mref-a1", "mref-a2", "mref-b1", "mref-b2", "mref-c1", "mref-c2"].map((m) => [m, true]);
    await answers(w, [...cycle, ...cycle, ...cycle, ...cycle, ...cycle]);
    const done = await recommendation(w, { justifications: "true" });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: "ready", module_ids: [], stuck: false });
    expect(done.body.justifications).toBeUndefined();
    const more = await recommendation(w, { continued_recommendations: "true", justifications: "true" });
    expect(more.body.status).toBe("ready");
    expect(more.body.module_ids.length).toBeGreaterThan(0);
    const top = more.body.justifications![more.body.module_ids[0]!]!;
    expect(top.intent).toBe("continued_practice");
    // status and progress agree: complete
    const status = await api("POST", "/v0/registrations/{id}/metrics/status-and-progress", {
      token: w.p.adminToken,
      body: { goal_ids: [w.goalId] },
      path: { id: w.reg.id },
    });
    expect(status.body.data[0]!.status_and_progress[0]).toMatchObject({ status: "complete", progress: 1, work_remaining: 0 });
  });

  it("remediates a prerequisite the learner fails, with a remedial justification toward the target", async () => {
    const w = await tutoringWorld({
      name: "Reach C",
      adaptive_behavior: "practice",
      targets: { include: ["lref-c"] },
      scope: { remediation_depth: "maximum" },
    });
    await answers(w, [
      ["mref-c1", false],
      ["mref-c2", false],
      ["mref-b1", false],
      ["mref-b2", false],
      ["mref-c1", false],
    ]);
    const res = await recommendation(w, { justifications: "true" });
    const top = res.body.justifications![res.body.module_ids[0]!]!;
    expect(top).toMatchObject({ target_learning_objective_id: "lref-c", remedial: true });
    expect(["lref-a", "lref-b"]).toContain(top.current_learning_objective_id);
    expect(res.body.module_ids[0]).toMatch(/^mref-[ab]/);
  });

  it("is stuck for a learner who never succeeds, and status-and-progress says struggling", async () => {
    const w = await tutoringWorld({ name: "A only", adaptive_behavior: "practice", targets: { include: ["lref-a"] } });
    let stuck = false;
    // not before a slow learner could no longer explain the failures (docs/recommendation.md "Stuck")
    for (let i = 0; i < 80 && !stuck; i++) {
      const rec = await recommendation(w);
      stuck = rec.body.stuck;
      if (!stuck) await answer(w, rec.body.module_ids.find((m: string) => m !== "mref-a3") ?? "mref-a1", false);
    }
    expect(stuck).toBe(true);
    const status = await api("POST", "/v0/registrations/{id}/metrics/status-and-progress", {
      token: w.p.adminToken,
      body: { goal_ids: [w.goalId] },
      path: { id: w.reg.id },
    });
    expect(status.body.data[0]!.status_and_progress[0]!.status).toBe("struggling");
  });

  it("only carries intents of its goal's adaptive_behavior", async () => {
    for (const behavior of ["practice", "introduce", "review"] as const) {
      const w = await tutoringWorld({ name: behavior, adaptive_behavior: behavior, targets: { include: ["lref-c", "lref-d"] } });
      const seen = new Set<string>();
      for (let i = 0; i < 14; i++) {
        const rec = await recommendation(w, { justifications: "true" });
        const top = rec.body.module_ids[0];
        if (!top) break;
        seen.add(rec.body.justifications![top]!.intent);
        await answer(w, top, i % 3 !== 0);
      }
      expect(seen.size).toBeGreaterThan(0);
      for (const intent of seen) expect(INTENTS_BY_BEHAVIOR[behavior], `${behavior}: ${intent}`).toContain(intent);
    }
  });

  it("404 for a goal not assigned to the registration or not in its instance; 400 without a valid goal_id", async () => {
    const w = await tutoringWorld();
    const other = await api("POST", "/v0/learning-instances/{id}/scoped-goals", {
      token: w.p.adminToken,
      body: { name: "Unassigned", adaptive_behavior: "practice", targets: { include: ["lref-d"] } },
      path: { id: w.li.id },
    });
    expect((await recommendation(w, {}, other.body.id)).status).toBe(404);
    expect((await recommendation(w, {}, crypto.randomUUID())).status).toBe(404);
    const noGoal = await api("GET", "/v0/registrations/{id}/recommendation", { token: w.p.adminToken, path: { id: w.reg.id } });
    expect(noGoal.status).toBe(400);
    expect((await recommendation(w, {}, "not-a-uuid")).status).toBe(400);
    expect(
      (await rawCall("GET", `/v0/registrations/${w.reg.id}/recommendation?goal_id=${w.goalId}&justifications=maybe`, { token: await freshAdminToken(w.p) }))
        .status,
    ).toBe(400);
    // once assigned, it answers
    await assignGoal(w.p, w.li.id, other.body.id, w.reg.id);
    expect((await recommendation(w, {}, other.body.id)).status).toBe(200);
    // a registration of another instance does not see this instance's goals
    const elsewhere = await tutoringWorld(undefined, w.p);
    const foreign = await api("GET", "/v0/registrations/{id}/recommendation", {
      token: w.p.adminToken,
      path: { id: elsewhere.reg.id },
      query: { goal_id: w.goalId },
    });
    expect(foreign.status).toBe(404);
  });
});
