import { describe, expect, it } from "vitest";
import { type GoalScopeInput, type RemediationDepth, resolveGoalScope } from "../../../src/graphs/resolve-goal-scope";
import { indexGraph, type RuntimeGraph, type RuntimeModule } from "../../../src/graphs/runtime-graph";
import { addIsoDuration, parseIsoDuration } from "../../../src/lib/iso-duration";

/**
 * Hand-made graph, objectives in topological order:
 *   lref-a <- lref-b <- lref-c <- lref-d <- lref-e   (a 4-level prerequisite chain below e)
 *   lref-x (side prerequisite of lref-d), lref-z (unrelated)
 * Atoms: one assessment per objective (mref-q-<o>), one instructional for c (mref-i-c),
 * one atom aligned to both d and z (mref-q-dz). Bundle mref-set-cd = [mref-q-c, mref-q-d].
 */
function handGraph(): RuntimeGraph {
  const objectives = ["lref-a", "lref-x", "lref-b", "lref-c", "lref-d", "lref-e", "lref-z"];
  const o = (l: string) => objectives.indexOf(l);
  const prereq: Record<string, string[]> = { "lref-b": ["lref-a"], "lref-c": ["lref-b"], "lref-d": ["lref-c", "lref-x"], "lref-e": ["lref-d"] };
  const prerequisites = objectives.map((l) => (prereq[l] ?? []).map(o));
  const dependents = objectives.map((_, i) => prerequisites.flatMap((ps, j) => (ps.includes(i) ? [j] : [])));
  const depth: number[] = [];
  for (const i of objectives.keys()) depth[i] = Math.max(-1, ...prerequisites[i]!.map((p) => depth[p]!)) + 1;
  const modules: RuntimeModule[] = [];
  const atom = (label: string, objs: string[], type: RuntimeModule["type"] = "assessment") =>
    modules.push({ label, uuid: crypto.randomUUID(), name: label, type, atom: true, objectives: objs.map(o), members: [], algorithmic: false });
  for (const l of objectives) atom(`mref-q-${l.slice(5)}`, [l]);
  atom("mref-i-c", ["lref-c"], "instructional");
  atom("mref-q-dz", ["lref-d", "lref-z"]);
  const m = (l: string) => modules.findIndex((x) => x.label === l);
  modules.push({
    label: "mref-set-cd",
    uuid: crypto.randomUUID(),
    name: "set",
    type: "assessment",
    atom: false,
    objectives: [o("lref-c"), o("lref-d")],
    members: [m("mref-q-c"), m("mref-q-d")],
    algorithmic: false,
  });
  return {
    format: 1,
    id: crypto.randomUUID(),
    label: "gref-hand",
    name: "Hand",
    version: 1,
    objectives,
    objectiveNames: objectives,
    prerequisites,
    dependents,
    depth,
    modules,
    assessmentsByObjective: objectives.map((_, i) => modules.flatMap((x, j) => (x.atom && x.type !== "instructional" && x.objectives.includes(i) ? [j] : []))),
    instructionByObjective: objectives.map((_, i) => modules.flatMap((x, j) => (x.atom && x.type !== "assessment" && x.objectives.includes(i) ? [j] : []))),
    taxonomy: [],
  };
}

const index = indexGraph(handGraph());
const refs = (ids: string[], path: string) => ids.map((id, i) => ({ id, path: `${path}[${i}]` }));
const input = (targets: string[], depth: RemediationDepth = "one", include: string[] = [], exclude: string[] = []): GoalScopeInput => ({
  targets: refs(targets, "body.targets.include"),
  remediationDepth: depth,
  include: refs(include, "body.scope.include"),
  exclude: refs(exclude, "body.scope.exclude"),
});
function resolve(i: GoalScopeInput) {
  const r = resolveGoalScope(index, i);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return {
    objectives: r.scope.objectives.map((x) => index.graph.objectives[x]).sort(),
    modules: r.scope.modules.map((x) => index.graph.modules[x]!.label).sort(),
    scope: r.scope,
  };
}

describe("resolveGoalScope", () => {
  it("walks prerequisites to the requested depth", () => {
    expect(resolve(input(["lref-e"], "none")).objectives).toEqual(["lref-e"]);
    expect(resolve(input(["lref-e"], "one")).objectives).toEqual(["lref-d", "lref-e"]);
    expect(resolve(input(["lref-e"], "two")).objectives).toEqual(["lref-c", "lref-d", "lref-e", "lref-x"]);
    expect(resolve(input(["lref-e"], "three")).objectives).toEqual(["lref-b", "lref-c", "lref-d", "lref-e", "lref-x"]);
    expect(resolve(input(["lref-e"], "maximum")).objectives).toEqual(["lref-a", "lref-b", "lref-c", "lref-d", "lref-e", "lref-x"]);
  });

  it("recommends the atoms aligned to in-scope objectives, never bundles", () => {
    expect(resolve(input(["lref-e"], "none")).modules).toEqual(["mref-q-e"]);
    expect(resolve(input(["lref-e"], "one")).modules).toEqual(["mref-q-d", "mref-q-dz", "mref-q-e"]);
    expect(resolve(input(["lref-d"], "one")).modules).toEqual(["mref-i-c", "mref-q-c", "mref-q-d", "mref-q-dz", "mref-q-x"]);
  });

  it("records the prerequisite distance from the nearest target", () => {
    const { scope } = resolve(input(["lref-e", "lref-c"], "maximum"));
    const d = (l: string) => scope.distance.get(index.objectiveByLabel.get(l)!);
    expect([d("lref-e"), d("lref-c"), d("lref-d"), d("lref-b"), d("lref-a"), d("lref-x")]).toEqual([0, 0, 1, 1, 2, 2]);
  });

  it("applies include and exclude of objectives and modules (bundles expand to atoms)", () => {
    const r = resolve(input(["lref-e"], "one", ["lref-a", "mref-set-cd"], ["mref-q-dz"]));
    expect(r.objectives).toEqual(["lref-a", "lref-d", "lref-e"]);
    expect(r.modules).toEqual(["mref-q-a", "mref-q-c", "mref-q-d", "mref-q-e"]);
    const s = resolve(input(["lref-e"], "maximum", [], ["lref-c", "mref-set-cd"]));
    expect(s.objectives).toEqual(["lref-a", "lref-b", "lref-d", "lref-e", "lref-x"]);
    expect(s.modules).toEqual(["mref-q-a", "mref-q-b", "mref-q-dz", "mref-q-e", "mref-q-x"]);
  });

  it("module targets: the targets themselves plus the atoms of remedial objectives", () => {
    const none = resolve(input(["mref-q-d"], "none"));
    expect(none.objectives).toEqual(["lref-d"]);
    expect(none.modules).toEqual(["mref-q-d"]);
    const one = resolve(input(["mref-set-cd"], "one"));
    expect(one.scope.targetKind).toBe("module");
    expect(one.objectives).toEqual(["lref-b", "lref-c", "lref-d", "lref-x"]);
    // target objectives c and d contribute only the target atoms (not mref-i-c); b and x are remedial
    expect(one.modules).toEqual(["mref-q-b", "mref-q-c", "mref-q-d", "mref-q-x"]);
    expect(resolve(input(["mref-q-e"], "one")).modules).toEqual(["mref-q-d", "mref-q-dz", "mref-q-e"]);
  });

  it("names every unknown id with its path", () => {
    const r = resolveGoalScope(index, input(["lref-e", "lref-nope"], "one", ["mref-missing"], ["lref-gone"]));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => p.path)).toEqual(["body.targets.include[1]", "body.scope.include[0]", "body.scope.exclude[0]"]);
    expect(r.problems[0]!.message).toContain("lref-nope");
  });

  it("refuses to exclude a target", () => {
    const r = resolveGoalScope(index, input(["lref-e"], "one", [], ["lref-e"]));
    expect(r.ok).toBe(false);
    const m = resolveGoalScope(index, input(["mref-q-e"], "one", [], ["mref-q-e"]));
    expect(m.ok).toBe(false);
  });
});

describe("parseIsoDuration", () => {
  it("accepts strict ISO 8601 durations", () => {
    expect(parseIsoDuration("P2W")?.weeks).toBe(2);
    expect(parseIsoDuration("P10D")?.days).toBe(10);
    expect(parseIsoDuration("PT36H")?.hours).toBe(36);
    expect(parseIsoDuration("P1Y2M3DT4H5M6S")).toEqual({ years: 1, months: 2, weeks: 0, days: 3, hours: 4, minutes: 5, seconds: 6 });
  });
  it("refuses everything else", () => {
    for (const bad of ["", "P", "PT", "2W", "P2w", "p2W", "P1.5D", "P-1D", "P2W3D", "P1DT", "PT1D", "P0D", "PT0S", "P1H", " P1D", "P1D ", "P1M1Y"]) {
      expect(parseIsoDuration(bad), bad).toBeUndefined();
    }
  });
  it("adds to a date", () => {
    const from = new Date("2026-01-31T00:00:00Z");
    expect(addIsoDuration(from, parseIsoDuration("PT36H")!).toISOString()).toBe("2026-02-01T12:00:00.000Z");
    expect(addIsoDuration(from, parseIsoDuration("P2W")!).toISOString()).toBe("2026-02-14T00:00:00.000Z");
  });
  it("clamps a month or year step to the last day of a shorter month, as date libraries do", () => {
    const add = (from: string, d: string) => addIsoDuration(new Date(from), parseIsoDuration(d)!).toISOString();
    expect(add("2026-01-31T10:00:00Z", "P1M")).toBe("2026-02-28T10:00:00.000Z");
    expect(add("2028-01-31T00:00:00Z", "P1M")).toBe("2028-02-29T00:00:00.000Z");
    expect(add("2026-03-31T00:00:00Z", "P1M")).toBe("2026-04-30T00:00:00.000Z");
    expect(add("2028-02-29T00:00:00Z", "P1Y")).toBe("2029-02-28T00:00:00.000Z");
    expect(add("2026-01-31T00:00:00Z", "P1M1D")).toBe("2026-03-01T00:00:00.000Z");
    expect(add("2026-01-15T00:00:00Z", "P1M")).toBe("2026-02-15T00:00:00.000Z");
    expect(add("2026-12-31T00:00:00Z", "P2M")).toBe("2027-02-28T00:00:00.000Z");
  });
});
