import { beforeAll, describe, expect, it } from "vitest";
import { freshAdminToken } from "../support/api";
import { assignGoal, createGoal } from "../support/goals";
import { answers, recommendation, type TutoringWorld, tutoringWorld } from "../support/tutoring";
import { api } from "../support/typed-api";

/**
 * max_work_on_goal (decisions.md "Learner-model outputs": `complete_max_work` when that many
 * interactions were spent without meeting the criteria; docs/goals.md): only the interactions since
 * the goal's assignment count, and a goal over by its cap is `ready` in the recommendation too.
 */

let uncapped: TutoringWorld;
let capped: TutoringWorld;

const status = async (w: TutoringWorld) => {
  const res = await api("POST", "/v0/registrations/{id}/metrics/status-and-progress", {
    token: await freshAdminToken(w.p),
    path: { id: w.reg.id },
    body: { goal_ids: [w.goalId] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data[0]!.status_and_progress[0]!;
};

/** Wrong answers that end now, after every assignment of the test (most recent first). */
async function wrongAnswersNow(w: TutoringWorld, modules: string[]) {
  await new Promise((r) => setTimeout(r, 20));
  const now = Date.now();
  const events = modules.map((module_id, i) => ({
    type: "graded-events" as const,
    module_id,
    is_correct: false,
    interaction_end_time: new Date(now - i).toISOString(),
  }));
  const res = await api("POST", "/v0/registrations/{id}/batch-events", { token: await freshAdminToken(w.p), path: { id: w.reg.id }, body: { events } });
  expect(res.status, JSON.stringify(res.body)).toBe(204);
}

beforeAll(async () => {
  uncapped = await tutoringWorld();
  // Four answers on the scope before the capped goal exists.
  await answers(uncapped, [
    ["mref-c1", false],
    ["mref-b1", false],
    ["mref-c1", false],
    ["mref-b1", false],
  ]);
  const goal = await createGoal(uncapped.p, uncapped.li.id, {
    name: "Reach C in three",
    adaptive_behavior: "practice",
    targets: { include: ["lref-c"] },
    completion_criteria: { max_work_on_goal: 3 },
  });
  await assignGoal(uncapped.p, uncapped.li.id, goal.id, uncapped.reg.id);
  capped = { ...uncapped, goalId: goal.id };
});

describe("max_work_on_goal", () => {
  it("does not count the work done on the scope before the goal was assigned", async () => {
    expect(await status(capped)).toMatchObject({ status: "in_progress" });
    const rec = await recommendation(capped);
    expect(rec.status).toBe(200);
    expect(rec.body).toMatchObject({ status: "in progress" });
    expect(rec.body.module_ids.length).toBeGreaterThan(0);
  });

  it("ends the goal at the cap: status complete_max_work, the recommendation ready with nothing to do", async () => {
    await wrongAnswersNow(capped, ["mref-c1", "mref-b1"]);
    expect(await status(capped)).toMatchObject({ status: "in_progress" });
    await wrongAnswersNow(capped, ["mref-c1"]);
    const s = await status(capped);
    expect(s).toMatchObject({ status: "complete_max_work" });
    // still honest about mastery: not complete, and what mastering would take
    expect(s.progress).toBeLessThan(1);
    expect(s.targets).toEqual([expect.objectContaining({ target_id: "lref-c", status: "in_progress" })]);
    const rec = await recommendation(capped);
    expect(rec.body).toMatchObject({ status: "ready", module_ids: [], stuck: false });
    // with continued recommendations the learner may go on practising the targets
    const more = await recommendation(capped, { continued_recommendations: "true" });
    expect(more.body).toMatchObject({ status: "ready" });
    expect(more.body.module_ids.length).toBeGreaterThan(0);
  });

  it("leaves a goal without a cap, on the same learner and evidence, in progress", async () => {
    expect(await status(uncapped)).toMatchObject({ status: "in_progress" });
    expect((await recommendation(uncapped)).body).toMatchObject({ status: "in progress" });
  });
});
