import { describe, expect, it } from "vitest";
import { syntheticGraph } from "../../../bench/lib/synthetic-graph";
import { buildRuntimeGraph } from "../../../src/graphs/build-runtime-graph";
import type { GraphDocument } from "../../../src/graphs/graph-document";
import { nonAdditiveChanges, removedIds } from "../../../src/graphs/graph-update-rules";
import { validateGraph } from "../../../src/graphs/validate-graph";
import { demoGraph } from "../../support/demo-graph";

const doc = (): GraphDocument => structuredClone(demoGraph());

describe("validateGraph (pure)", () => {
  it("accepts the demo graph with no errors or warnings", () => {
    const r = validateGraph(doc());
    expect(r).toMatchObject({ valid: true, errors: [], warnings: [] });
    expect(r.counts).toMatchObject({ learning_objectives: 4, prerequisites: 3, modules: 12, bundles: 4, taxa: 2 });
  });

  it("reports every problem at once, in document order per rule", () => {
    const d = doc();
    d.label = "demo";
    d.learning_objectives[1]!.id = "lref-a";
    d.modules[3]!.learning_objectives = ["lref-q", "lref-r"];
    d.modules[7]!.learning_objectives = [];
    d.bundles![0]!.modules.push("mref-set-b", "mref-zz");
    d.taxonomy![0]!.modules.push("mref-yy");
    const r = validateGraph(d);
    expect(r.valid).toBe(false);
    // renaming lref-b to a duplicate of lref-a also leaves lref-b's references dangling: each is reported
    expect(r.errors.map((e) => e.path)).toEqual([
      "body.label",
      "body.learning_objectives[1].id",
      "body.learning_objectives[2].prerequisites[0]",
      "body.modules[3].learning_objectives[0]",
      "body.modules[3].learning_objectives[1]",
      "body.modules[4].learning_objectives[0]",
      "body.modules[5].learning_objectives[0]",
      "body.modules[7].learning_objectives",
      "body.bundles[0].modules[3]",
      "body.bundles[0].modules[4]",
      "body.taxonomy[0].modules[6]",
    ]);
  });

  it("names the objectives on each cycle, one error per cycle", () => {
    const d = doc();
    d.learning_objectives[0]!.prerequisites = ["lref-c"]; // a -> c -> b -> a
    d.learning_objectives.push({ id: "lref-x", name: "x", prerequisites: ["lref-y"] }, { id: "lref-y", name: "y", prerequisites: ["lref-x"] });
    const r = validateGraph(d);
    expect(r.errors).toEqual([
      { path: "body.learning_objectives[0].prerequisites[0]", message: expect.stringContaining("prerequisite cycle: lref-a -> lref-c -> lref-b -> lref-a") },
      { path: "body.learning_objectives[4].prerequisites[0]", message: expect.stringContaining("prerequisite cycle: lref-x -> lref-y -> lref-x") },
    ]);
  });

  it("hints at the prefix when a reference is not an lref- id", () => {
    const d = doc();
    d.modules[0]!.learning_objectives = ["a"];
    expect(validateGraph(d).errors).toEqual([
      { path: "body.modules[0].learning_objectives[0]", message: "unknown learning objective 'a' (learning objective ids start with 'lref-')" },
    ]);
  });

  it("rejects ids with whitespace and bare prefixes", () => {
    const d = doc();
    d.modules[0]!.id = "mref-";
    d.modules[1]!.id = "mref-a 2";
    const r = validateGraph(d);
    expect(r.errors.map((e) => e.path)).toEqual([
      "body.modules[0].id",
      "body.modules[1].id",
      "body.bundles[0].modules[0]",
      "body.bundles[0].modules[1]",
      "body.taxonomy[0].modules[0]",
      "body.taxonomy[0].modules[1]",
    ]);
    expect(r.errors[1]!.message).toBe("module id 'mref-a 2' must not contain whitespace");
  });

  it("warns (without failing) about duplicated references and objectives without assessment", () => {
    const d = doc();
    d.learning_objectives[2]!.prerequisites = ["lref-b", "lref-b"];
    d.modules = d.modules.filter((m) => !(m.id === "mref-d1" || m.id === "mref-d2"));
    d.bundles![3]!.modules = ["mref-d3"];
    d.taxonomy![1]!.modules = ["mref-c1"];
    const r = validateGraph(d);
    expect(r.valid).toBe(true);
    expect(r.warnings).toEqual([
      { path: "body.learning_objectives[2].prerequisites[1]", message: "prerequisite 'lref-b' is listed twice" },
      { path: "body.learning_objectives[3]", message: "learning objective 'lref-d' has no assessing module; mastery cannot be measured" },
    ]);
  });

  it("enforces the size limits (configurable for tests)", () => {
    const r = validateGraph(doc(), { limits: { modules: 11, learningObjectives: 3 } });
    expect(r.errors).toEqual([
      { path: "body.modules", message: "a graph holds at most 11 modules; this one has 12" },
      { path: "body.learning_objectives", message: "a graph holds at most 3 learning objectives; this one has 4" },
    ]);
    expect(validateGraph(syntheticGraph(20_000, 2_000)).valid).toBe(true);
  });

  it("keeps graph labels usable in URL paths", () => {
    const d = doc();
    d.label = "gref-a/b";
    expect(validateGraph(d).errors).toEqual([
      { path: "body.label", message: "graph label 'gref-a/b' must not contain / ? # % or \\ (it is used in URL paths)" },
    ]);
  });

  it("uses the given path prefix", () => {
    const d = doc();
    d.label = "x";
    expect(validateGraph(d, { pathPrefix: "$" }).errors[0]!.path).toBe("$.label");
  });

  it("lists ids removed by an update", () => {
    const d = doc();
    d.learning_objectives.pop();
    d.bundles!.pop();
    expect(removedIds({ objectives: ["lref-a", "lref-d"], modules: ["mref-a1", "mref-set-d"] }, d)).toEqual([
      { path: "body.learning_objectives", message: expect.stringContaining("'lref-d' was removed") },
      { path: "body.modules", message: expect.stringContaining("'mref-set-d' was removed") },
    ]);
  });

  it("nonAdditiveChanges: additions pass; a lost reference to a removed id is reported once (as the removal)", () => {
    const v1 = buildRuntimeGraph(doc(), { id: "00000000-0000-4000-8000-000000000000", version: 1 });
    const add = doc();
    add.learning_objectives[3]!.prerequisites!.push("lref-b");
    add.modules[0]!.learning_objectives.push("lref-d");
    add.bundles![0]!.modules.push("mref-d1");
    add.taxonomy![1]!.modules.push("mref-a1");
    add.modules.push({ id: "mref-new", name: "New", type: "both", learning_objectives: ["lref-a"] });
    expect(validateGraph(add).valid).toBe(true);
    expect(nonAdditiveChanges(v1, add)).toEqual([]);

    const rm = doc();
    rm.modules = rm.modules.filter((m) => m.id !== "mref-d3");
    rm.bundles![3]!.modules = ["mref-d1", "mref-d2"];
    rm.taxonomy![1]!.modules = rm.taxonomy![1]!.modules.filter((m) => m !== "mref-d3");
    expect(validateGraph(rm).valid).toBe(true);
    expect(nonAdditiveChanges(v1, rm)).toEqual([{ path: "body.modules", message: expect.stringContaining("'mref-d3' was removed") }]);
  });
});
