import { beforeAll, describe, expect, it } from "vitest";
import { createInstance, type Json, newPartner } from "../support/api";
import { createGoal, type GoalInput, type GoalWorld, goalBody, goalPath, goalsPath, goalWorld, postGoal, resolvedScope } from "../support/goals";
import { rawCall } from "../support/raw-call";
import { api } from "../support/typed-api";

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function expectError(res: { status: number; body: any }, status: number, detailPaths?: string[]) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ code: status, message: expect.any(String), error_id: expect.any(String) });
  if (detailPaths) expect(res.body.details.map((d: Json) => d.path)).toEqual(expect.arrayContaining(detailPaths));
}

let w: GoalWorld;
beforeAll(async () => {
  w = await goalWorld();
});

describe("scoped goals: CRUD", () => {
  it("creates a goal with defaults filled and reads it back", async () => {
    const res = await postGoal(w.p, w.li.id, goalBody());
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const g = res.body;
    expect(g).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      learning_instance_id: w.li.id,
      name: "Week 3 homework",
      adaptive_behavior: "practice",
      targets: { include: ["lref-c"], completion_behavior: "all" },
      scope: { remediation_depth: "one", include: [], exclude: [] },
      completion_criteria: { min_predicted_mastery: 0.8 },
      config: { analytics_enabled: true, assign_to: "none" },
    });
    expect(g.topics).toBeUndefined();
    expect(g.created_at).toMatch(ISO_Z);
    expect(g.last_modified).toBe(g.created_at);

    const got = await api("GET", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token: w.p.adminToken, path: { id: w.li.id, goal_id: g.id } });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(g);
  });

  it("echoes every field of a full goal (topics, criteria, timing normalized to UTC Z)", async () => {
    const end = new Date(Date.now() + 30 * 86400_000);
    const offset = end.toISOString().replace("Z", "+00:00");
    const body: GoalInput = {
      name: "Unit 2 review",
      adaptive_behavior: "review",
      topics: [
        { id: "t1", name: "Chains", targets: { include: ["lref-c"], completion_behavior: "average" } },
        { id: "t2", name: "Side", targets: { include: ["lref-d"] } },
      ],
      scope: { remediation_depth: "none", include: ["mref-a1"], exclude: ["mref-c3"] },
      completion_criteria: { min_predicted_mastery: 0.9, min_work_per_target: 3, max_work_on_goal: 60 },
      timing: { end: offset, relative_deadline: "P2W" },
      config: { analytics_enabled: false, assign_to: "none" },
    };
    const g = await createGoal(w.p, w.li.id, body);
    expect(g).toMatchObject({
      ...body,
      topics: [body.topics![0], { ...body.topics![1], targets: { include: ["lref-d"], completion_behavior: "all" } }],
      timing: { end: end.toISOString(), relative_deadline: "P2W" },
    });
    const scope = await resolvedScope(w.p, w.li.id, g.id);
    expect(scope.learning_objective_ids.sort()).toEqual(["lref-c", "lref-d"]);
    expect(scope.module_ids.sort()).toEqual(["mref-a1", "mref-c1", "mref-c2", "mref-d1", "mref-d2", "mref-d3"]);
  });

  it("lists the instance's goals as a bare array in creation order, paged", async () => {
    const li = await createInstance(w.p);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createGoal(w.p, li.id, goalBody({ name: `G${i}` }))).id);
    const all = await api("GET", "/v0/learning-instances/{id}/scoped-goals", { token: w.p.adminToken, path: { id: li.id } });
    expect(all.status).toBe(200);
    expect(all.body.map((g: Json) => g.id)).toEqual(ids);
    const list = (query: { offset?: number; limit?: number }) =>
      api("GET", "/v0/learning-instances/{id}/scoped-goals", { token: w.p.adminToken, path: { id: li.id }, query });
    const page = await list({ offset: 1, limit: 1 });
    expect(page.body.map((g: Json) => g.id)).toEqual([ids[1]]);
    expectError(await list({ limit: 501 }), 400);
  });

  it("PUT replaces the whole goal and updates last_modified", async () => {
    const g = await createGoal(
      w.p,
      w.li.id,
      goalBody({ scope: { remediation_depth: "maximum", include: ["mref-d1"] }, timing: { relative_deadline: "P10D" } }),
    );
    await new Promise((r) => setTimeout(r, 5));
    const put = await api("PUT", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", {
      token: w.p.adminToken,
      body: { name: "Renamed", adaptive_behavior: "practice", targets: { include: ["lref-b", "lref-d"] } },
      path: { id: w.li.id, goal_id: g.id },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({ id: g.id, name: "Renamed", targets: { include: ["lref-b", "lref-d"] }, scope: { remediation_depth: "one", include: [] } });
    expect(put.body.timing).toBeUndefined();
    expect(put.body.created_at).toBe(g.created_at);
    expect(Date.parse(put.body.last_modified)).toBeGreaterThan(Date.parse(g.created_at));
    const got = await api("GET", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token: w.p.adminToken, path: { id: w.li.id, goal_id: g.id } });
    expect(got.body).toEqual(put.body);
    const scope = await resolvedScope(w.p, w.li.id, g.id);
    expect(scope.learning_objective_ids.sort()).toEqual(["lref-a", "lref-b", "lref-d"]);
  });

  it("DELETE removes the goal (204, then 404 everywhere)", async () => {
    const g = await createGoal(w.p, w.li.id);
    const del = await api("DELETE", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token: w.p.adminToken, path: { id: w.li.id, goal_id: g.id } });
    expect(del.status).toBe(204);
    expect(del.body).toBeNull();
    expectError(await api("GET", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token: w.p.adminToken, path: { id: w.li.id, goal_id: g.id } }), 404);
    expectError(
      await api("DELETE", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token: w.p.adminToken, path: { id: w.li.id, goal_id: g.id } }),
      404,
    );
    expectError(
      await api("PUT", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token: w.p.adminToken, body: goalBody(), path: { id: w.li.id, goal_id: g.id } }),
      404,
    );
    const list = await api("GET", "/v0/learning-instances/{id}/scoped-goals", { token: w.p.adminToken, path: { id: w.li.id } });
    expect(list.body.map((x: Json) => x.id)).not.toContain(g.id);
  });

  it("a goal is reachable only through its own learning instance", async () => {
    const other = await createInstance(w.p);
    const g = await createGoal(w.p, w.li.id);
    expectError(await api("GET", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token: w.p.adminToken, path: { id: other.id, goal_id: g.id } }), 404);
    expectError(
      await api("GET", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token: w.p.adminToken, path: { id: w.li.id, goal_id: crypto.randomUUID() } }),
      404,
    );
  });

  it("deleting the learning instance hides its goals", async () => {
    const li = await createInstance(w.p);
    const g = await createGoal(w.p, li.id);
    expect((await api("DELETE", "/v0/learning-instances/{id}", { token: w.p.adminToken, path: { id: li.id } })).status).toBe(204);
    expectError(await api("GET", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token: w.p.adminToken, path: { id: li.id, goal_id: g.id } }), 404);
    expectError(await api("GET", "/v0/learning-instances/{id}/scoped-goals", { token: w.p.adminToken, path: { id: li.id } }), 404);
  });
});

describe("scoped goals: validation", () => {
  // untyped on purpose: these bodies break the contract
  const post = (body: Json) => rawCall("POST", goalsPath(w.li.id), { token: w.p.adminToken, body });

  it("a name or topic name with an e-mail address → 422", async () => {
    expectError(await post(goalBody({ name: "Homework for jane.doe@example.com" })), 422, ["body.name"]);
    expectError(await post(goalBody({ name: "Homework for jane.doe\uFF20example.com" })), 422, ["body.name"]);
    expectError(await post(goalBody({ targets: undefined, topics: [{ id: "t", name: "ask bob@school.org", targets: { include: ["lref-a"] } }] })), 422, [
      "body.topics[0].name",
    ]);
  });

  it("targets, includes and excludes not in the graph → 422 naming each id and its path", async () => {
    const res = await post(goalBody({ targets: { include: ["lref-c", "lref-nope"] }, scope: { include: ["mref-ghost"], exclude: ["lref-gone"] } }));
    expectError(res, 422, ["body.targets.include[1]", "body.scope.include[0]", "body.scope.exclude[0]"]);
    expect(res.body.details).toHaveLength(3);
    expect(res.body.details[0].message).toContain("lref-nope");
    expect(res.body.details[1].message).toContain("mref-ghost");
    const topics = await post(goalBody({ targets: undefined, topics: [{ id: "t", targets: { include: ["mref-a1", "mref-zz"] } }] }));
    expectError(topics, 422, ["body.topics[0].targets.include[1]"]);
  });

  it("both or neither of targets and topics → 400", async () => {
    expectError(await post(goalBody({ topics: [{ id: "t", targets: { include: ["lref-a"] } }] })), 400);
    expectError(await post(goalBody({ targets: undefined })), 400);
  });

  it("mixed lref/mref targets → 400; other malformed bodies → 400", async () => {
    expectError(await post(goalBody({ targets: { include: ["lref-a", "mref-a1"] } })), 400, ["body.targets.include[1]"]);
    expectError(
      await post(
        goalBody({
          targets: undefined,
          topics: [
            { id: "t1", targets: { include: ["lref-a"] } },
            { id: "t2", targets: { include: ["mref-b1"] } },
          ],
        }),
      ),
      400,
    );
    expectError(await post(goalBody({ targets: { include: [] } })), 400);
    expectError(await post(goalBody({ targets: { include: ["tref-x"] } })), 400);
    expectError(await post({ ...goalBody(), adaptive_behavior: "cram" }), 400, ["body.adaptive_behavior"]);
    expectError(await post(goalBody({ adaptive_behavior: undefined })), 400);
    expectError(await post({ ...goalBody(), scope: { remediation_depth: "four" } }), 400);
    expectError(await post(goalBody({ completion_criteria: { min_predicted_mastery: 1.2 } })), 400);
    expectError(await post(goalBody({ completion_criteria: { max_work_on_goal: 0 } })), 400);
    expectError(await post(goalBody({ completion_criteria: { min_work_per_target: -1 } })), 400);
    expectError(await post({ ...goalBody(), config: { assign_to: "everyone" } }), 400);
    expectError(await post(goalBody({ timing: { end: "next week" } })), 400);
    expectError(await rawCall("POST", goalsPath(w.li.id), { token: w.p.adminToken, raw: "{not json", headers: { "Content-Type": "application/json" } }), 400);
  });

  it("a relative_deadline that is not a strict ISO 8601 duration → 400", async () => {
    for (const bad of ["2 weeks", "P", "PT", "P2w", "P1.5D", "P2W3D", "P0D", "-P1D"]) {
      expectError(await post(goalBody({ timing: { relative_deadline: bad } })), 400, ["body.timing.relative_deadline"]);
    }
    for (const good of ["P2W", "P10D", "PT36H"]) expect((await post(goalBody({ timing: { relative_deadline: good } }))).status).toBe(201);
  });

  it("timing.end more than two years ahead → 422", async () => {
    const far = new Date(Date.now() + 3 * 365 * 86400_000).toISOString();
    expectError(await post(goalBody({ timing: { end: far } })), 422, ["body.timing.end"]);
    const near = new Date(Date.now() + 365 * 86400_000).toISOString();
    expect((await post(goalBody({ timing: { end: near } }))).status).toBe(201);
  });

  it("excluding a target → 422", async () => {
    expectError(await post(goalBody({ scope: { exclude: ["lref-c"] } })), 422, ["body.scope.exclude[0]"]);
  });

  it("PUT cannot change adaptive_behavior or the target kind (422) and nothing changes", async () => {
    const g = await createGoal(w.p, w.li.id);
    const put = (body: GoalInput) =>
      api("PUT", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token: w.p.adminToken, body, path: { id: w.li.id, goal_id: g.id } });
    expectError(await put(goalBody({ adaptive_behavior: "review" })), 422, ["body.adaptive_behavior"]);
    expectError(await put(goalBody({ targets: { include: ["mref-c1"] } })), 422, ["body.targets.include"]);
    expectError(await put(goalBody({ targets: undefined, topics: [{ id: "t", targets: { include: ["mref-c1"] } }] })), 422, ["body.topics"]);
    // same kind through topics is fine
    const ok = await put(goalBody({ targets: undefined, topics: [{ id: "t", targets: { include: ["lref-b"] } }] }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const got = await api("GET", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token: w.p.adminToken, path: { id: w.li.id, goal_id: g.id } });
    expect(got.body.adaptive_behavior).toBe("practice");
  });

  it("path ids that are not UUIDs → 400", async () => {
    expectError(await api("GET", "/v0/learning-instances/{id}/scoped-goals", { token: w.p.adminToken, path: { id: "not-a-uuid" } }), 400, ["path.id"]);
    expectError(
      await api("GET", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token: w.p.adminToken, path: { id: w.li.id, goal_id: "nope" } }),
      400,
      ["path.goal_id"],
    );
    expectError(await api("POST", "/v0/learning-instances/{id}/scoped-goals", { token: w.p.adminToken, body: goalBody(), path: { id: "123" } }), 400);
    expectError(await rawCall("PUT", `${goalPath(w.li.id, crypto.randomUUID())}/registrations/xyz`, { token: w.p.adminToken }), 400, ["path.registration_id"]);
  });

  it("unknown learning instance → 404", async () => {
    expectError(await postGoal(w.p, crypto.randomUUID(), goalBody()), 404);
  });
});

describe("scoped goals: caller rules", () => {
  it("admin and an instructor of the instance may; a learner may not (403); another partner's admin gets 404", async () => {
    const other = await newPartner("Other partner");
    const byInstructor = await postGoal(w.instructorToken, w.li.id, goalBody({ name: "Instructor goal" }));
    expect(byInstructor.status, JSON.stringify(byInstructor.body)).toBe(201);
    const g = byInstructor.body;
    for (const [method, path, body] of [
      ["GET", goalsPath(w.li.id)],
      ["GET", goalPath(w.li.id, g.id)],
      ["PUT", goalPath(w.li.id, g.id), goalBody({ name: "Instructor goal 2" })],
    ] as const) {
      expect((await rawCall(method, path, { token: w.instructorToken, body })).status, `${method} ${path}`).toBe(200);
      expectError(await rawCall(method, path, { token: w.learnerToken, body }), 403);
      expectError(await rawCall(method, path, { token: other.adminToken, body }), 404);
    }
    expectError(await postGoal(w.learnerToken, w.li.id, goalBody()), 403);
    expectError(await postGoal(other.adminToken, w.li.id, goalBody()), 404);
    expectError(
      await api("DELETE", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token: w.learnerToken, path: { id: w.li.id, goal_id: g.id } }),
      403,
    );
    expectError(
      await api("DELETE", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token: other.adminToken, path: { id: w.li.id, goal_id: g.id } }),
      404,
    );
    // an instructor of another instance is refused
    const li2 = await createInstance(w.p);
    expectError(await postGoal(w.instructorToken, li2.id, goalBody()), 403);
    expect(
      (await api("DELETE", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token: w.instructorToken, path: { id: w.li.id, goal_id: g.id } })).status,
    ).toBe(204);
    // no token → 401
    expectError(await api("GET", "/v0/learning-instances/{id}/scoped-goals", { path: { id: w.li.id } }), 401);
  });
});
