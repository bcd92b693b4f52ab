import { describe, expect, it } from "vitest";
import { syntheticGraph } from "../../../bench/lib/synthetic-graph";
import { buildRuntimeGraph } from "../../../src/graphs/build-runtime-graph";
import { decodeRuntimeGraph, encodeRuntimeGraph } from "../../../src/graphs/runtime-codec";
import { findModule, indexGraph } from "../../../src/graphs/runtime-graph";
import { demoGraph } from "../../support/demo-graph";

let n = 0;
const seqUuid = () => `00000000-0000-4000-8000-${(n++).toString().padStart(12, "0")}`;

describe("buildRuntimeGraph (pure)", () => {
  it("orders objectives topologically with adjacency and depth", () => {
    const d = demoGraph();
    // list c before its prerequisites to check the ordering
    d.learning_objectives = [d.learning_objectives[2]!, d.learning_objectives[3]!, d.learning_objectives[1]!, d.learning_objectives[0]!];
    const g = buildRuntimeGraph(d, { id: "g1", version: 1, newUuid: seqUuid });
    expect(g.format).toBe(1);
    expect(g.objectives).toEqual(["lref-a", "lref-d", "lref-b", "lref-c"]);
    expect(g.objectiveNames[0]).toBe("Objective A");
    const at = (label: string) => g.objectives.indexOf(label);
    expect(g.prerequisites[at("lref-c")]).toEqual([at("lref-b")]);
    expect(g.prerequisites[at("lref-a")]).toEqual([]);
    expect(g.dependents[at("lref-a")]).toEqual([at("lref-d"), at("lref-b")].sort());
    expect(g.depth).toEqual([0, 1, 1, 2]);
    for (let k = 0; k < g.objectives.length; k++) for (const p of g.prerequisites[k]!) expect(p).toBeLessThan(k);
  });

  it("indexes atoms then bundles, objectives by type, and taxonomy", () => {
    const g = buildRuntimeGraph(demoGraph(), { id: "g1", version: 3, newUuid: seqUuid });
    expect(g.version).toBe(3);
    expect(g.modules).toHaveLength(16);
    const idx = indexGraph(g);
    const a1 = findModule(idx, "mref-a1")!;
    const setA = findModule(idx, "mref-set-a")!;
    const a = idx.objectiveByLabel.get("lref-a")!;
    expect(g.modules[a1]).toMatchObject({ atom: true, type: "assessment", objectives: [a], members: [], algorithmic: false });
    expect(g.modules[setA]).toMatchObject({ atom: false, type: "both", objectives: [a], algorithmic: true });
    expect(g.modules[setA]!.members).toEqual([a1, a1 + 1, a1 + 2]);
    expect(g.assessmentsByObjective[a]).toEqual([a1, a1 + 1]);
    expect(g.instructionByObjective[a]).toEqual([a1 + 2]);
    expect(g.taxonomy[0]).toEqual({ id: "tref-TOC:Unit1", modules: [0, 1, 2, 3, 4, 5] });
    expect(findModule(idx, g.modules[a1]!.uuid.toUpperCase())).toBe(a1);
  });

  it("keeps the previous version's module uuids and mints new ones for new modules", () => {
    const v1 = buildRuntimeGraph(demoGraph(), { id: "g1", version: 1 });
    const d = demoGraph();
    d.modules.push({ id: "mref-new", name: "new", type: "both", learning_objectives: ["lref-c"] });
    const v2 = buildRuntimeGraph(d, { id: "g1", version: 2, previousUuids: new Map(v1.modules.map((m) => [m.label, m.uuid])) });
    const uuidOf = (g: typeof v1, label: string) => g.modules.find((m) => m.label === label)!.uuid;
    expect(uuidOf(v2, "mref-a1")).toBe(uuidOf(v1, "mref-a1"));
    expect(uuidOf(v2, "mref-set-d")).toBe(uuidOf(v1, "mref-set-d"));
    expect(new Set(v2.modules.map((m) => m.uuid)).size).toBe(v2.modules.length);
    const c = v2.objectives.indexOf("lref-c");
    const added = v2.modules.findIndex((m) => m.label === "mref-new");
    expect(v2.assessmentsByObjective[c]).toContain(added);
    expect(v2.instructionByObjective[c]).toContain(added);
  });

  it("refuses a cyclic document (validate first)", () => {
    const d = demoGraph();
    d.learning_objectives[0]!.prerequisites = ["lref-c"];
    expect(() => buildRuntimeGraph(d, { id: "g", version: 1 })).toThrow(/cycle/);
  });

  it("builds a 20,000-module graph whose JSON round-trips", () => {
    const g = buildRuntimeGraph(syntheticGraph(20_000, 2_000), { id: "g", version: 1 });
    expect(g.modules.length).toBe(22_000);
    const back = JSON.parse(JSON.stringify(g));
    expect(back).toEqual(g);
    for (let k = 0; k < g.objectives.length; k++) for (const p of g.prerequisites[k]!) expect(p).toBeLessThan(k);
  });
});

describe("stored runtime encoding (runtime-codec)", () => {
  it("round-trips a graph exactly and is smaller than the plain JSON", () => {
    const g = buildRuntimeGraph(syntheticGraph(2_000, 200), { id: "g", version: 2 });
    const stored = JSON.stringify(encodeRuntimeGraph(g));
    expect(decodeRuntimeGraph(JSON.parse(stored))).toEqual(g);
    expect(stored.length).toBeLessThan(JSON.stringify(g).length * 0.6);
    const demo = buildRuntimeGraph(demoGraph(), { id: "d", version: 1 });
    expect(decodeRuntimeGraph(JSON.parse(JSON.stringify(encodeRuntimeGraph(demo))))).toEqual(demo);
  });

  it("refuses an unknown encoding", () => {
    expect(() => decodeRuntimeGraph({ encoding: "columns-9" } as never)).toThrow(/unknown stored runtime graph encoding/);
  });
});
