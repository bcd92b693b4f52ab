import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { GraphDocument } from "../../src/graphs/graph-document";
import { createGraph, createInstance, type Json, newPartner, type Partner } from "../support/api";
import { createGoal, goalBody, resolvedScope } from "../support/goals";
import { api } from "../support/typed-api";

/**
 * A hand-made graph with a 4-level prerequisite chain below the target:
 *   lref-l1 <- lref-l2 <- lref-l3 <- lref-l4 <- lref-l5,  lref-s <- lref-l4 (side prerequisite),  lref-u (unrelated)
 * Per objective N: mref-qN (assessment), mref-iN (instructional); mref-mix aligned to l4 and u;
 * bundle mref-set-12 = [mref-q1, mref-q2].
 */
const OBJ = ["l1", "l2", "l3", "l4", "l5", "s", "u"];
const PRE: Record<string, string[]> = { l2: ["l1"], l3: ["l2"], l4: ["l3", "s"], l5: ["l4"] };
const chainGraph = (): GraphDocument => ({
  label: "gref-chain",
  name: "Chain",
  learning_objectives: OBJ.map((o) => ({ id: `lref-${o}`, name: `Objective ${o}`, prerequisites: (PRE[o] ?? []).map((p) => `lref-${p}`) })),
  modules: [
    ...OBJ.flatMap((o) => [
      { id: `mref-q${o}`, name: `Q ${o}`, type: "assessment" as const, learning_objectives: [`lref-${o}`] },
      { id: `mref-i${o}`, name: `Lesson ${o}`, type: "instructional" as const, learning_objectives: [`lref-${o}`] },
    ]),
    { id: "mref-mix", name: "Mixed", type: "both", learning_objectives: ["lref-l4", "lref-u"] },
  ],
  bundles: [{ id: "mref-set-12", name: "Set", modules: ["mref-ql1", "mref-ql2"] }],
});

const atomsOf = (objs: string[]) => objs.flatMap((o) => [`mref-q${o}`, `mref-i${o}`]);
const sorted = (xs: string[]) => [...xs].sort();

let p: Partner;
let li: Json;
beforeAll(async () => {
  p = await newPartner("Scope partner");
  await createGraph(p, chainGraph());
  li = await createInstance(p, { graph_id: "gref-chain", name: "Chain course" });
});

async function scopeOf(body: Json) {
  const g = await createGoal(p, li.id, goalBody(body));
  const s = await resolvedScope(p, li.id, g.id);
  return { objectives: sorted(s.learning_objective_ids), modules: sorted(s.module_ids), raw: s, goal: g };
}

describe("goal scope resolution through the API (hand-made 4-level chain)", () => {
  const cases: [string, string[], string[]][] = [
    ["none", ["l5"], []],
    ["one", ["l4", "l5"], ["mref-mix"]],
    ["two", ["l3", "l4", "l5", "s"], ["mref-mix"]],
    ["three", ["l2", "l3", "l4", "l5", "s"], ["mref-mix"]],
    ["maximum", ["l1", "l2", "l3", "l4", "l5", "s"], ["mref-mix"]],
  ];
  for (const [depth, objectives, extra] of cases) {
    it(`remediation_depth ${depth}`, async () => {
      const s = await scopeOf({ targets: { include: ["lref-l5"] }, scope: { remediation_depth: depth } });
      expect(s.objectives).toEqual(sorted(objectives.map((o) => `lref-${o}`)));
      expect(s.modules).toEqual(sorted([...atomsOf(objectives), ...extra]));
      expect(s.raw.target_learning_objective_ids).toEqual(["lref-l5"]);
    });
  }

  it("the default depth is one", async () => {
    const s = await scopeOf({ targets: { include: ["lref-l5"] } });
    expect(s.goal.scope.remediation_depth).toBe("one");
    expect(s.objectives).toEqual(["lref-l4", "lref-l5"]);
  });

  it("include and exclude (objectives, modules, bundles)", async () => {
    const s = await scopeOf({
      targets: { include: ["lref-l5"] },
      scope: { remediation_depth: "one", include: ["lref-u", "mref-set-12"], exclude: ["mref-il4", "lref-l4"] },
    });
    expect(s.objectives).toEqual(["lref-l5", "lref-u"]);
    expect(s.modules).toEqual(sorted([...atomsOf(["l5", "u"]), "mref-mix", "mref-ql1", "mref-ql2"]));
  });

  it("module targets: the targets plus the atoms of remedial objectives", async () => {
    const s = await scopeOf({ targets: { include: ["mref-ql5"] }, scope: { remediation_depth: "one" } });
    expect(s.objectives).toEqual(["lref-l4", "lref-l5"]);
    expect(s.modules).toEqual(sorted(["mref-ql5", ...atomsOf(["l4"]), "mref-mix"]));
    const none = await scopeOf({ targets: { include: ["mref-ql5"] }, scope: { remediation_depth: "none" } });
    expect(none.modules).toEqual(["mref-ql5"]);
  });

  it("PUT re-resolves the scope", async () => {
    const { goal } = await scopeOf({ targets: { include: ["lref-l5"] }, scope: { remediation_depth: "none" } });
    const put = await api("PUT", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", {
      token: p.adminToken,
      body: goalBody({ targets: { include: ["lref-l3"] }, scope: { remediation_depth: "maximum" } }),
      path: { id: li.id, goal_id: goal.id },
    });
    expect(put.status).toBe(200);
    const s = await resolvedScope(p, li.id, goal.id);
    expect(sorted(s.learning_objective_ids)).toEqual(["lref-l1", "lref-l2", "lref-l3"]);
  });
});

describe("the resolved scope follows new graph versions", () => {
  it("a goal created on version 1 recommends an atom added to a target objective by version 2 (persisted)", async () => {
    const q = await newPartner("Scope refresh partner");
    const g = await createGraph(q, chainGraph());
    const inst = await createInstance(q, { graph_id: "gref-chain", name: "Chain course" });
    const goal = await createGoal(q, inst.id, goalBody({ targets: { include: ["lref-l5"] }, scope: { remediation_depth: "one" } }));
    const before = await resolvedScope(q, inst.id, goal.id);
    expect(before.graph_version).toBe(1);
    expect(before.module_ids).not.toContain("mref-new5");

    const v2 = chainGraph();
    v2.modules.push(
      { id: "mref-new5", name: "New on l5", type: "assessment", learning_objectives: ["lref-l5"] },
      { id: "mref-newu", name: "New on u", type: "assessment", learning_objectives: ["lref-u"] },
    );
    v2.modules.find((m) => m.id === "mref-qu")!.learning_objectives.push("lref-l4"); // gains an in-scope alignment
    const put = await api("PUT", "/v0/graphs/{graph_id}", { token: q.adminToken, body: v2, path: { graph_id: "gref-chain" } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);

    const after = await resolvedScope(q, inst.id, goal.id);
    expect(after).toMatchObject({ graph_id: g.id, graph_version: 2, target_learning_objective_ids: ["lref-l5"] });
    expect(sorted(after.module_ids)).toEqual(sorted([...before.module_ids, "mref-new5", "mref-qu"]));
    expect(after.module_ids).not.toContain("mref-newu");

    // stored, and the goal itself is not modified
    const row = await env.DB.prepare("SELECT graph_version, scope_modules FROM goals WHERE id = ?")
      .bind(goal.id)
      .first<{ graph_version: number; scope_modules: string }>();
    expect(row!.graph_version).toBe(2);
    expect(sorted(JSON.parse(row!.scope_modules))).toEqual(sorted(after.module_ids));
    const got = await api("GET", "/v0/learning-instances/{id}/scoped-goals/{goal_id}", { token: q.adminToken, path: { id: inst.id, goal_id: goal.id } });
    expect(got.body.last_modified).toBe(goal.last_modified);
  });
});
