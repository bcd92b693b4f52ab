import { beforeAll, describe, expect, it } from "vitest";
import doc from "../../samples/pre-algebra/graph.json";
import type { GraphDocument } from "../../src/graphs/graph-document";
import { createGraph, createInstance, type Json, newPartner, type Partner } from "../support/api";
import { createGoal, type GoalInput, goalBody, resolvedScope } from "../support/goals";

/** Remediation depths on the sample pre-algebra graph (samples/pre-algebra/graph.json, bundled by vite). */
const graph = doc as unknown as GraphDocument;
const prereqs = new Map<string, string[]>(graph.learning_objectives.map((o: Json) => [o.id, o.prerequisites ?? []]));
const sorted = (xs: Iterable<string>) => [...xs].sort();

/** Atoms (graph modules; bundles are separate) aligned with any of the objectives, read from the document. */
function atomsOn(objectives: string[]): string[] {
  const set = new Set(objectives);
  return sorted(graph.modules.filter((m: Json) => m.learning_objectives.some((o: string) => set.has(o))).map((m: Json) => m.id));
}

function transitive(target: string): string[] {
  const seen = new Set<string>([target]);
  const stack = [target];
  while (stack.length)
    for (const p of prereqs.get(stack.pop()!) ?? [])
      if (!seen.has(p)) {
        seen.add(p);
        stack.push(p);
      }
  return sorted(seen);
}

let p: Partner;
let li: Json;
beforeAll(async () => {
  p = await newPartner("Pre-algebra partner");
  await createGraph(p, graph);
  li = await createInstance(p, { graph_id: graph.label, name: "Pre-algebra" });
});

type RemediationDepth = NonNullable<NonNullable<GoalInput["scope"]>["remediation_depth"]>;

describe("goal scope on the sample pre-algebra graph", () => {
  const target = "lref-var-both-sides";
  // Hand-checked against samples/pre-algebra/prerequisites.csv:
  // var-both-sides <- multi-step-eq <- {two-step-eq, distributive} <- {one-step-eq | like-terms, int-mul-div}
  const levels: Record<RemediationDepth, string[]> = {
    none: [target],
    one: [target, "lref-multi-step-eq"],
    two: [target, "lref-multi-step-eq", "lref-two-step-eq", "lref-distributive"],
    three: [target, "lref-multi-step-eq", "lref-two-step-eq", "lref-distributive", "lref-one-step-eq", "lref-like-terms", "lref-int-mul-div"],
    maximum: transitive(target),
  };

  for (const [depth, objectives] of Object.entries(levels) as [RemediationDepth, string[]][]) {
    it(`remediation_depth ${depth}`, async () => {
      const g = await createGoal(p, li.id, goalBody({ targets: { include: [target] }, scope: { remediation_depth: depth } }));
      const s = await resolvedScope(p, li.id, g.id);
      expect(sorted(s.learning_objective_ids)).toEqual(sorted(objectives));
      expect(sorted(s.module_ids)).toEqual(atomsOn(objectives));
      expect(s.module_ids.length).toBeGreaterThan(0);
    });
  }

  it("maximum reaches the root objective and strictly grows with depth", async () => {
    expect(levels.maximum).toContain("lref-whole-add-sub");
    expect(levels.maximum!.length).toBeGreaterThan(levels.three!.length);
  });
});
