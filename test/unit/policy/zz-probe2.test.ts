import { it } from "vitest";
import { recommend, GoalAnalysis } from "../../../src/policy";
import { POLICY } from "../../../src/policy/config";
import { priorPopulation } from "../../../src/tracing/rates";
import { goal, graph, Learner } from "./fixture";
const index = graph();
const POP = priorPopulation();
let OWN = false;
function firstFlag(wrongBefore: number, tail: number): string {
  (POLICY as any).stuckSlowTail = tail; (POLICY as any).stuckPrereqOwnEvidence = OWN;
  const g = goal(index);
  const l = new Learner(index);
  for (const o of ["d", "a", "b"]) {
    for (let i = 0; i < wrongBefore; i++) l.answer(`mref-${o}${(i % 4) + 1}`, false);
    l.practise(o, true, 3);
  }
  for (let n = 1; n <= 200; n++) {
    l.answer(`mref-c${((n - 1) % 4) + 1}`, false);
    if (recommend(g, l.tutor, POP).stuck) {
      const a = new GoalAnalysis(g, l.tutor, POP);
      return `${n} speed ${a.reading.typicalSpeed.toFixed(2)}`;
    }
  }
  return "never";
}
it("probe", () => {
  for (const own of [false, true]) { OWN = own; console.log("own", own);
  for (const w of [0, 1, 3, 6, 10, 15]) console.log(`wrong ${w}: integrated ${firstFlag(w, 1)}, slow tail 0.1 ${firstFlag(w, 0.1)}`);
}});
