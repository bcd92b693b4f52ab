import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/db/client";
import { assignedGoalsOf, isAssigned, listAssignedRegistrations } from "../../src/services/goal-assignments";
import { findGoal } from "../../src/services/goals";
import { createAccount, createInstance, type Json, newPartner, register } from "../support/api";
import { assignmentPath, createGoal, type GoalWorld, goalBody, goalWorld } from "../support/goals";
import { rawCall } from "../support/raw-call";
import { api } from "../support/typed-api";

let w: GoalWorld;
beforeAll(async () => {
  w = await goalWorld();
});

const db = () => openDb(env.DB);
const sorted = (xs: string[]) => [...xs].sort();

describe("goal assignment: one registration", () => {
  it("PUT assigns (idempotent), GET checks, DELETE unassigns", async () => {
    const g = await createGoal(w.p, w.li.id);
    const reg = w.learners[0]!;
    const path = { id: w.li.id, goal_id: g.id, registration_id: reg.id };
    const t = w.p.adminToken;

    expect((await api("GET", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}", { token: t, path })).status).toBe(404);
    for (let i = 0; i < 2; i++) {
      const put = await api("PUT", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}", { token: t, path });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(put.body).toEqual({ goal_id: g.id, registration_id: reg.id });
    }
    const got = await api("GET", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}", { token: t, path });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ goal_id: g.id, registration_id: reg.id });

    expect(await isAssigned(db(), g.id, reg.id)).toBe(true);
    expect((await assignedGoalsOf(db(), reg.id)).map((x) => x.id)).toContain(g.id);
    expect((await listAssignedRegistrations(db(), g.id)).map((r) => r.id)).toEqual([reg.id]);

    const del = await api("DELETE", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}", { token: t, path });
    expect(del.status).toBe(204);
    expect((await api("GET", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}", { token: t, path })).status).toBe(404);
    expect((await api("DELETE", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}", { token: t, path })).status).toBe(404);
    expect(await isAssigned(db(), g.id, reg.id)).toBe(false);
  });

  it("refuses registrations outside the instance: unknown 404, other partner 404, other instance 422", async () => {
    const g = await createGoal(w.p, w.li.id);
    const t = w.p.adminToken;
    expect(
      (
        await api("PUT", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}", {
          token: t,
          path: { id: w.li.id, goal_id: g.id, registration_id: crypto.randomUUID() },
        })
      ).status,
    ).toBe(404);
    const li2 = await createInstance(w.p);
    const acct = await createAccount(w.p);
    const elsewhere = await register(w.p, acct.id, li2.id, "learner");
    const res = await api("PUT", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}", {
      token: t,
      path: { id: w.li.id, goal_id: g.id, registration_id: elsewhere.id },
    });
    expect(res.status).toBe(422);
    expect(res.error.details![0]!.path).toBe("path.registration_id");
    const other = await goalWorld(await newPartner("Other"));
    expect(
      (
        await api("PUT", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}", {
          token: t,
          path: { id: w.li.id, goal_id: g.id, registration_id: other.learners[0]!.id },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await api("PUT", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}", {
          token: t,
          path: { id: w.li.id, goal_id: crypto.randomUUID(), registration_id: w.learners[0]!.id },
        })
      ).status,
    ).toBe(404);
  });

  it("caller rules: admin and instructor of the instance; learner 403; other partner's admin 404", async () => {
    const g = await createGoal(w.p, w.li.id);
    const path = { id: w.li.id, goal_id: g.id, registration_id: w.learners[1]!.id };
    const other = await newPartner("Other");
    const assignment = "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}";
    const assign = async (token: string) => (await api("PUT", assignment, { token, path })).status;
    const read = async (token: string) => (await api("GET", assignment, { token, path })).status;
    const unassign = async (token: string) => (await api("DELETE", assignment, { token, path })).status;
    expect(await assign(w.learnerToken)).toBe(403);
    expect(await assign(other.adminToken)).toBe(404);
    expect(await assign(w.instructorToken)).toBe(200);
    expect(await read(w.instructorToken)).toBe(200);
    expect(await read(w.learnerToken)).toBe(403);
    expect(await unassign(w.learnerToken)).toBe(403);
    expect(await unassign(other.adminToken)).toBe(404);
    const batch = { action: "assign", registration_type: "learner" } as const;
    expect(
      (
        await api("PUT", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations", {
          token: w.learnerToken,
          body: batch,
          path: { id: w.li.id, goal_id: g.id },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await api("PUT", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations", {
          token: other.adminToken,
          body: batch,
          path: { id: w.li.id, goal_id: g.id },
        })
      ).status,
    ).toBe(404);
    expect(
      (await api("DELETE", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}", { token: w.instructorToken, path })).status,
    ).toBe(204);
  });
});

describe("goal assignment: batch", () => {
  it("assigns and unassigns by ids, reporting partial failures grouped by reason", async () => {
    const g = await createGoal(w.p, w.li.id);
    const li2 = await createInstance(w.p);
    const elsewhere = await register(w.p, (await createAccount(w.p)).id, li2.id, "learner");
    const foreign = (await goalWorld(await newPartner("Foreign"))).learners[0]!;
    const unknown = crypto.randomUUID();
    const mine = w.learners.map((r) => r.id);
    const path = { id: w.li.id, goal_id: g.id };

    const res = await api("PUT", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations", {
      token: w.p.adminToken,
      path,
      body: { action: "assign", registration_ids: [mine[0]!, unknown, elsewhere.id, mine[1]!, foreign.id, mine[0]!] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.action).toBe("assign");
    expect(sorted(res.body.success.registration_ids)).toEqual(sorted(mine));
    expect(res.body.failure).toHaveLength(2);
    const f404 = res.body.failure.find((f: Json) => f.code === 404)!;
    const f422 = res.body.failure.find((f: Json) => f.code === 422)!;
    expect(sorted(f404.registration_ids)).toEqual(sorted([unknown, foreign.id]));
    expect(f404.message).toEqual(expect.any(String));
    expect(f422.registration_ids).toEqual([elsewhere.id]);
    for (const id of mine)
      expect(
        (
          await api("GET", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}", {
            token: w.p.adminToken,
            path: { id: w.li.id, goal_id: g.id, registration_id: id },
          })
        ).status,
      ).toBe(200);
    expect((await listAssignedRegistrations(db(), g.id)).map((r) => r.id)).toEqual(mine);

    const un = await api("PUT", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations", {
      token: w.p.adminToken,
      path,
      body: { action: "unassign", registration_ids: [mine[0]!, unknown] },
    });
    expect(un.status).toBe(200);
    expect(un.body).toEqual({
      action: "unassign",
      success: { registration_ids: [mine[0]] },
      failure: [{ registration_ids: [unknown], code: 404, message: expect.any(String) }],
    });
    expect((await listAssignedRegistrations(db(), g.id)).map((r) => r.id)).toEqual([mine[1]]);
  });

  it("assigns and unassigns by registration_type", async () => {
    const g = await createGoal(w.p, w.li.id);
    const path = { id: w.li.id, goal_id: g.id };
    const res = await api("PUT", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations", {
      path,
      token: w.p.adminToken,
      body: { action: "assign", registration_type: "learner" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ action: "assign", success: { registration_ids: w.learners.map((r) => r.id) }, failure: [] });
    const ins = await api("PUT", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations", {
      token: w.p.adminToken,
      path,
      body: { action: "assign", registration_type: "instructor" },
    });
    expect(ins.body.success.registration_ids).toEqual([w.instructor.id]);
    expect((await listAssignedRegistrations(db(), g.id, { type: "learner" })).map((r) => r.id)).toEqual(w.learners.map((r) => r.id));
    const un = await api("PUT", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations", {
      token: w.p.adminToken,
      path,
      body: { action: "unassign", registration_type: "learner" },
    });
    expect(un.status).toBe(200);
    expect((await listAssignedRegistrations(db(), g.id)).map((r) => r.id)).toEqual([w.instructor.id]);
  });

  it("validates the batch body (400)", async () => {
    const g = await createGoal(w.p, w.li.id);
    const path = assignmentPath(w.li.id, g.id);
    const put = (body: unknown) => rawCall("PUT", path, { token: w.p.adminToken, body });
    expect((await put({ action: "assign" })).status).toBe(400);
    expect((await put({ action: "assign", registration_ids: [w.learners[0]!.id], registration_type: "learner" })).status).toBe(400);
    expect((await put({ action: "move", registration_ids: [w.learners[0]!.id] })).status).toBe(400);
    expect((await put({ action: "unassign", registration_ids: ["not-a-uuid"] })).status).toBe(400);
    expect((await put({ action: "unassign", registration_type: "admin" })).status).toBe(400);
    const tooMany = Array.from({ length: 501 }, () => crypto.randomUUID());
    expect((await put({ action: "unassign", registration_ids: tooMany })).status).toBe(400);
    const max = await put({ action: "unassign", registration_ids: tooMany.slice(0, 500) });
    expect(max.status).toBe(200);
    expect(max.body.failure[0].registration_ids).toHaveLength(500);
  });
});

describe("goal assignment: lifecycle", () => {
  it("config.assign_to applies at creation", async () => {
    const learners = await createGoal(w.p, w.li.id, goalBody({ config: { assign_to: "learners" } }));
    expect((await listAssignedRegistrations(db(), learners.id)).map((r) => r.id)).toEqual(w.learners.map((r) => r.id));
    const instructors = await createGoal(w.p, w.li.id, goalBody({ config: { assign_to: "instructors" } }));
    expect((await listAssignedRegistrations(db(), instructors.id)).map((r) => r.id)).toEqual([w.instructor.id]);
    const all = await createGoal(w.p, w.li.id, goalBody({ config: { assign_to: "all" } }));
    expect(sorted((await listAssignedRegistrations(db(), all.id)).map((r) => r.id))).toEqual(sorted([...w.learners, w.instructor].map((r) => r.id)));
    const none = await createGoal(w.p, w.li.id, goalBody({ config: { assign_to: "none" } }));
    expect(await listAssignedRegistrations(db(), none.id)).toEqual([]);
    expect(
      (
        await api("GET", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}", {
          token: w.p.adminToken,
          path: { id: w.li.id, goal_id: learners.id, registration_id: w.learners[0]!.id },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await api("GET", "/v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}", {
          token: w.p.adminToken,
          path: { id: w.li.id, goal_id: learners.id, registration_id: w.instructor.id },
        })
      ).status,
    ).toBe(404);
  });

  it("deleting a goal removes its assignments; deleting a registration hides its assignment", async () => {
    const x = await goalWorld(w.p);
    const g = await createGoal(w.p, x.li.id, goalBody({ config: { assign_to: "all" } }));
    expect((await api("DELETE", "/v0/registrations/{reg_id}", { token: w.p.adminToken, path: { reg_id: x.learners[1]!.id } })).status).toBe(204);
    expect(await isAssigned(db(), g.id, x.learners[1]!.id)).toBe(false);
    expect(await assignedGoalsOf(db(), x.learners[1]!.id)).toEqual([]);
    expect((await listAssignedRegistrations(db(), g.id)).map((r) => r.id)).toEqual([x.learners[0]!.id, x.instructor.id]);

    expect(
      (await api("DELETE", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token: w.p.adminToken, path: { id: x.li.id, goal_id: g.id } })).status,
    ).toBe(204);
    expect(await findGoal(db(), g.id)).toBeUndefined();
    expect(await assignedGoalsOf(db(), x.learners[0]!.id)).toEqual([]);
    const left = await env.DB.prepare("SELECT COUNT(*) AS n FROM goal_assignments WHERE goal_id = ?").bind(g.id).first<{ n: number }>();
    expect(left?.n).toBe(0);
  });

  it("deleting the learning instance hides its goals from findGoal", async () => {
    const x = await goalWorld(w.p);
    const g = await createGoal(w.p, x.li.id, goalBody({ config: { assign_to: "learners" } }));
    expect((await findGoal(db(), g.id))?.id).toBe(g.id);
    expect((await api("DELETE", "/v0/learning-instances/{id}", { token: w.p.adminToken, path: { id: x.li.id } })).status).toBe(204);
    expect(await findGoal(db(), g.id)).toBeUndefined();
    expect(await assignedGoalsOf(db(), x.learners[0]!.id)).toEqual([]);
  });
});
