import { describe, expect, it } from "vitest";
import { GoalAnalysis } from "../../../src/policy";
import { withoutImpliedPrerequisites } from "../../../src/tracing/implied-prerequisites";
import { priorPopulation } from "../../../src/tracing/rates";
import { goal, graph, Learner } from "./fixture";

describe("prerequisites another prerequisite already needs", () => {
  it("are dropped: each objective keeps only the prerequisites none of its others needs", () => {
    // a chain 0 <- 1 <- 2; 3 lists 0, 1 and 2, and 4 lists 1 and 2: only 2 is needed directly
    expect(withoutImpliedPrerequisites([[], [0], [0, 1], [0, 1, 2], [1, 2]])).toEqual([[], [0], [1], [2], [2]]);
    // a diamond keeps both sides, and drops the root listed again
    expect(withoutImpliedPrerequisites([[], [0], [0], [0, 1, 2]])).toEqual([[], [0], [0], [1, 2]]);
    // past 32 objectives (the bitsets' second word)
    const chain = Array.from({ length: 70 }, (_, k) => (k === 0 ? [] : k === 69 ? [0, 40, 68] : [k - 1]));
    expect(withoutImpliedPrerequisites(chain)[69]).toEqual([68]);
  });

  it("do not count twice in what a learner is believed to know", () => {
    // The same learner on a -> b -> c, and on the same graph with c listing a again: knowing b already
    // means knowing a, so the doubt about a must weigh once, not once per path.
    const plain = graph({ a: [], b: ["a"], c: ["b"], d: [] });
    const listedAgain = graph({ a: [], b: ["a"], c: ["b", "a"], d: [] });
    const answers: [string, boolean][] = [
      ["mref-a1", false],
      ["mref-a2", true],
      ["mref-b1", true],
      ["mref-c1", false],
      ["mref-c2", true],
    ];
    const known = (index: ReturnType<typeof graph>) => {
      const learner = new Learner(index);
      for (const [m, right] of answers) learner.answer(m, right);
      const a = new GoalAnalysis(goal(index, { remediation: "maximum" }), learner.tutor, priorPopulation());
      return ["lref-a", "lref-b", "lref-c"].map((l) => a.known(a.goal.local.get(l)!));
    };
    const [p, q] = [known(plain), known(listedAgain)];
    for (let i = 0; i < 3; i++) expect(q[i]).toBeCloseTo(p[i]!, 9);
    expect(p[0]).toBeLessThan(0.9); // a is in doubt, so counting it twice would have moved c
  });
});
