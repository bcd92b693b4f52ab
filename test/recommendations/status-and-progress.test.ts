import { beforeAll, describe, expect, it } from "vitest";
import type { Schemas } from "../../client";
import { StatusTableSchema } from "../../src/schemas/status-and-progress";
import { createAccount, createInstance, type Json, newPartner, type Partner, register } from "../support/api";
import { assignGoal } from "../support/goals";
import { rawCall } from "../support/raw-call";
import { answers, type TutoringWorld } from "../support/tutoring";
import { api } from "../support/typed-api";

/** Spec 4.4 through the Worker: paging, rows per docs/api-conventions.md "Lists, tables and metrics bodies", unassigned cells, validation. */

interface ClassWorld {
  p: Partner;
  li: Json;
  goalC: string;
  goalD: string;
  /** learners in creation order: 0-2 have goal C, 3 has only goal D, 4 has none */
  learners: Json[];
  instructor: Json;
}

let w: ClassWorld;
const table = (body: Schemas["InstanceStatusAndProgressRequest"]) =>
  api("POST", "/v0/learning-instances/{id}/metrics/status-and-progress", { token: w.p.adminToken, path: { id: w.li.id }, body });

beforeAll(async () => {
  const p = await newPartner("Status partner");
  const li = await createInstance(p);
  const learners: Json[] = [];
  for (let i = 0; i < 5; i++) learners.push(await register(p, (await createAccount(p)).id, li.id, "learner"));
  const instructor = await register(p, (await createAccount(p)).id, li.id, "instructor");
  const goal = async (target: string) =>
    (
      await api("POST", "/v0/learning-instances/{id}/scoped-goals", {
        token: p.adminToken,
        body: { name: target, adaptive_behavior: "practice", targets: { include: [target] } },
        path: { id: li.id },
      })
    ).body.id as string;
  const goalC = await goal("lref-c");
  const goalD = await goal("lref-d");
  for (const r of learners.slice(0, 3)) await assignGoal(p, li.id, goalC, r.id);
  await assignGoal(p, li.id, goalD, learners[3]!.id);
  await assignGoal(p, li.id, goalC, instructor.id);
  w = { p, li, goalC, goalD, learners, instructor };
  const learner0: TutoringWorld = { p, li, reg: learners[0]!, goalId: goalC };
  await answers(learner0, [
    ["mref-c1", true],
    ["mref-b1", false],
  ]);
});

describe("POST /v0/learning-instances/{id}/metrics/status-and-progress", () => {
  it("has one row per learner registration with one of the goals assigned, in creation order, cells in column order", async () => {
    const res = await table({ goal_ids: [w.goalC, w.goalD] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const t = StatusTableSchema.parse(res.body);
    expect(t.query).toEqual({ goal_ids: [w.goalC, w.goalD], registration_offset: 0, registrations_per_page: 100 });
    expect(t.column_headers).toEqual([w.goalC, w.goalD]);
    // learner 4 has neither goal; the instructor is not a learner
    expect(t.data.map((r) => r.registration_id)).toEqual(w.learners.slice(0, 4).map((r) => r.id));
    expect(t.next).toBeUndefined();
    for (const row of t.data) expect(row.status_and_progress.map((c) => c.goal_id)).toEqual([w.goalC, w.goalD]);
    // learner 0 has worked on goal C; learner 3 has only goal D: its C cell is the unassigned no_work cell
    expect(t.data[0]!.status_and_progress[0]).toMatchObject({ status: "in_progress" });
    expect(t.data[0]!.status_and_progress[0]!.work_remaining).toBeGreaterThanOrEqual(0);
    expect(t.data[3]!.status_and_progress[0]).toEqual({
      goal_id: w.goalC,
      status: "no_work",
      progress: 0,
      work_remaining: -1,
      targets: [{ target_id: "lref-c", status: "no_work", progress: 0 }],
    });
    expect(t.data[3]!.status_and_progress[1]).toMatchObject({ goal_id: w.goalD, status: "no_work", progress: 0 });
  });

  it("pages: next is present while rows remain, absent on the last page", async () => {
    const first = StatusTableSchema.parse((await table({ goal_ids: [w.goalC], registrations_per_page: 2 })).body);
    expect(first.data.map((r) => r.registration_id)).toEqual([w.learners[0]!.id, w.learners[1]!.id]);
    expect(first.next).toEqual({ registration_offset: 2, registrations_per_page: 2 });
    const second = StatusTableSchema.parse((await table({ goal_ids: [w.goalC], ...first.next })).body);
    expect(second.data.map((r) => r.registration_id)).toEqual([w.learners[2]!.id]);
    expect(second.next).toBeUndefined();
    const beyond = StatusTableSchema.parse((await table({ goal_ids: [w.goalC], registration_offset: 10 })).body);
    expect(beyond.data).toEqual([]);
  });

  it("refuses per_page 0 and 101, a negative offset, no goals (400) and a goal of another instance (422)", async () => {
    for (const body of [
      { goal_ids: [w.goalC], registrations_per_page: 0 },
      { goal_ids: [w.goalC], registrations_per_page: 101 },
      { goal_ids: [w.goalC], registration_offset: -1 },
      { goal_ids: [] },
      { goal_ids: ["nope"] },
      {},
    ]) {
      // untyped on purpose: the bodies break the request schema (`{}` has no goal_ids)
      const res = await rawCall("POST", `/v0/learning-instances/${w.li.id}/metrics/status-and-progress`, { token: w.p.adminToken, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const missing = crypto.randomUUID();
    const res = await table({ goal_ids: [w.goalC, missing] });
    expect(res.status).toBe(422);
    expect(res.error.details).toEqual([{ path: "body.goal_ids[1]", message: expect.stringContaining(missing) }]);
  });
});

describe("POST /v0/registrations/{id}/metrics/status-and-progress", () => {
  it("answers one row without next; an unassigned goal is a no_work cell", async () => {
    const res = await api("POST", "/v0/registrations/{id}/metrics/status-and-progress", {
      token: w.p.adminToken,
      body: { goal_ids: [w.goalD, w.goalC] },
      path: { id: w.learners[3]!.id },
    });
    expect(res.status).toBe(200);
    expect(res.body.query).toEqual({ goal_ids: [w.goalD, w.goalC] });
    expect(res.body.column_headers).toEqual([w.goalD, w.goalC]);
    expect(res.body).not.toHaveProperty("next");
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]!.status_and_progress.map((c: Json) => c.status)).toEqual(["no_work", "no_work"]);
  });
});
