import { describe, expect, it } from "vitest";
import { SERVICE_PARAMS } from "../../../src/model/service-params";
import { GoalAnalysis, recommend } from "../../../src/policy";
import { instruct, knownNow, LOG_ZERO, observe, upMessage } from "../../../src/policy/knowledge";
import { goal, graph, Learner } from "./fixture";

const fresh = () => ({ kk: 0, kl: LOG_ZERO, ku: 0, kn: 0 });

describe("knowledge evidence", () => {
  it("rises with right answers, falls with wrong ones, and an instruction may teach", () => {
    const e = fresh();
    expect(knownNow(e, 0, 0.5)).toBeCloseTo(0.5, 6);
    observe(e, true, 0.2);
    const one = knownNow(e, 0, 0.5);
    expect(one).toBeGreaterThan(0.5);
    observe(e, true, 0.2);
    expect(knownNow(e, 0, 0.5)).toBeGreaterThan(one);
    const w = fresh();
    observe(w, false, 0.2);
    const afterWrong = knownNow(w, 0, 0.5);
    expect(afterWrong).toBeLessThan(0.3);
    instruct(w, 0.2);
    expect(knownNow(w, 0, 0.5)).toBeGreaterThan(afterWrong);
  });

  it("learning after wrong answers is recognised: right answers after a run of failures make the objective known", () => {
    const e = fresh();
    for (let i = 0; i < 4; i++) observe(e, false, 0.2);
    expect(knownNow(e, 0, 0.5)).toBeLessThan(0.3); // about the chance that the last opportunity taught it
    for (let i = 0; i < 3; i++) observe(e, true, 0.2);
    expect(knownNow(e, 0, 0.5)).toBeGreaterThan(0.85);
  });

  it("a dependent answered right is evidence for its prerequisite; one that keeps failing is evidence against it", () => {
    const right = fresh();
    for (let i = 0; i < 3; i++) observe(right, true, 0.2);
    expect(upMessage(right, 0, 0.5)).toBeGreaterThan(2);
    const failing = fresh();
    for (let i = 0; i < 10; i++) observe(failing, false, 0.2);
    expect(upMessage(failing, 0, 0.5)).toBeLessThan(-1);
    // ... unless its other prerequisites are probably missing: then its failures say little about this one
    expect(upMessage(failing, 0, 0.5, 0.1)).toBeGreaterThan(-0.15);
    expect(upMessage(fresh(), 0, 0.5)).toBeCloseTo(0, 9);
  });
});

describe("the walk with knowledge evidence", () => {
  it("takes the prerequisites of a target answered right as known (no checks below it)", () => {
    const index = graph();
    const g = goal(index, { remediation: "two" });
    const l = new Learner(index);
    l.answer("mref-c1", true);
    l.answer("mref-c2", true);
    l.answer("mref-c3", true);
    const a = new GoalAnalysis(g, l.state, l.tutor, SERVICE_PARAMS);
    const b = g.local.get("lref-b") as number;
    expect(a.known(b)).toBeGreaterThan(0.85);
    expect(recommend(g, l.state, l.tutor).justification?.current_learning_objective_id).toBe("lref-c");
  });

  it("goes back to a prerequisite answered right once when the target keeps failing", () => {
    const index = graph();
    const g = goal(index);
    const l = new Learner(index);
    l.answer("mref-b1", true);
    l.answer("mref-b2", true);
    l.answer("mref-b3", true);
    const b = g.local.get("lref-b") as number;
    expect(new GoalAnalysis(g, l.state, l.tutor, SERVICE_PARAMS).implied(b)).toBe(true);
    for (let i = 0; i < 12; i++) l.answer(`mref-c${(i % 4) + 1}`, false);
    const a = new GoalAnalysis(g, l.state, l.tutor, SERVICE_PARAMS);
    expect(a.implied(b)).toBe(false);
    expect(recommend(g, l.state, l.tutor).justification).toMatchObject({ current_learning_objective_id: "lref-b", remedial: true });
  });
});
