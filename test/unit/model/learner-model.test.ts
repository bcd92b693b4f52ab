import { describe, expect, it } from "vitest";
import {
  accuracy,
  applyEvent,
  applyGraded,
  applyUngraded,
  auc,
  buildGraph,
  calibrate,
  checkParams,
  DEFAULT_FILTER,
  DEFAULT_GRAPH,
  FEATURE_NAMES,
  ITEM_MEMORY,
  initialLearnerState,
  type LearnerEvent,
  type LearnerState,
  type ModelParams,
  predictCorrect,
  proficiency,
  refineItem,
  replay,
  rmse,
} from "../../../src/model/index";
import { mulberry32, normalQuantile, sigmoid } from "../../../src/model/math";

/** Hand-made parameters: a plain logistic on the filter's logit plus a few count features. */
function handParams(): ModelParams {
  const dense = FEATURE_NAMES.map((n) => (n === "filterLogit" ? 1 : n === "logWinsObj" ? 0.2 : n === "logFailsObj" ? -0.1 : 0));
  return {
    version: 1,
    featureNames: [...FEATURE_NAMES],
    dense,
    items: { easy: [0.5, -1, 100, 0], hard: [-0.5, 1, 100, 0] },
    objectives: { A: [0, 0, 0, 0], B: [0, 0, 0, 0.3], C: [0, 0, 0, -0.2] },
    globalDifficulty: 0,
    filter: { ...DEFAULT_FILTER, forgetVarPerDay: 0.05, forgetHalfLifeDays: 20 },
    graph: { ...DEFAULT_GRAPH },
    refine: { step: 0.05, maxShift: 0.5 },
    meta: {},
  };
}

const DAY = 86_400_000;

/** Synthetic learners: ability + per-skill mastery that grows with practice, items of varying difficulty. */
function synthetic(nLearners: number, nEvents: number, seed: number): LearnerEvent[][] {
  const rnd = mulberry32(seed);
  const skills = ["s0", "s1", "s2", "s3"];
  const itemRnd = mulberry32(1234); // the item bank is shared by all learner samples
  const itemDiff: number[] = Array.from({ length: 40 }, () => itemRnd() * 3 - 1.5);
  const out: LearnerEvent[][] = [];
  for (let u = 0; u < nLearners; u++) {
    const ability = (rnd() - 0.5) * 3;
    const practice = [0, 0, 0, 0];
    const seq: LearnerEvent[] = [];
    for (let t = 0; t < nEvents; t++) {
      const item = Math.floor(rnd() * itemDiff.length);
      const k = item % 4;
      const objectives = item % 7 === 0 ? [skills[k] as string, skills[(k + 1) % 4] as string] : [skills[k] as string];
      const p = sigmoid(ability - (itemDiff[item] as number) + 0.3 * Math.log1p(practice[k] as number));
      practice[k] = (practice[k] as number) + 1;
      seq.push({ kind: "graded", itemKey: `i${item}`, objectives, correct: rnd() < p ? 1 : 0, timeMs: 0 });
    }
    out.push(seq);
  }
  return out;
}

function mixedLog(): LearnerEvent[] {
  const t0 = Date.UTC(2025, 0, 1);
  return [
    { kind: "graded", itemKey: "easy", objectives: ["A"], correct: 1, timeMs: t0 },
    { kind: "ungraded", itemKey: "video-1", objectives: ["B"], timeMs: t0 + 1000 },
    { kind: "graded", itemKey: "hard", objectives: ["A", "B"], correct: 0, timeMs: t0 + 2000 },
    { kind: "graded", itemKey: "unseen-item", objectives: ["C"], correct: true, timeMs: t0 + 30 * DAY },
    { kind: "graded", itemKey: "easy", objectives: ["A"], correct: false, timeMs: t0 + 31 * DAY },
    { kind: "graded", itemKey: "hard", objectives: ["B", "C"], correct: 1, timeMs: 0 },
  ];
}

describe("learner state: replay and serialization", () => {
  it("replaying the log equals the incrementally maintained (JSON-stored) state", () => {
    const params = handParams();
    const graph = buildGraph({ B: ["A"], C: ["B"] });
    const log = mixedLog();
    let stored = JSON.stringify(initialLearnerState(params));
    for (const ev of log) {
      const state = JSON.parse(stored) as LearnerState; // as a Durable Object would load it
      applyEvent(state, params, graph, ev);
      stored = JSON.stringify(state);
    }
    const replayed = replay(log, params, graph);
    expect(JSON.parse(stored)).toEqual(replayed);
    expect(JSON.parse(JSON.stringify(replayed))).toEqual(replayed);
    expect(replay(log, params, graph)).toEqual(replayed); // deterministic
  });

  it("keeps state bounded by objectives and the item memory, not by history length", () => {
    const params = handParams();
    const state = initialLearnerState(params);
    for (let i = 0; i < 2000; i++) {
      applyGraded(state, params, undefined, { itemKey: `item-${i % 500}`, objectives: [`o${i % 5}`], correct: i % 3 !== 0 });
    }
    expect(Object.keys(state.objectives)).toHaveLength(5);
    expect(Object.keys(state.items).length).toBeLessThanOrEqual(ITEM_MEMORY);
    expect(state.itemCount).toBe(Object.keys(state.items).length);
    expect(state.global.n).toBe(2000);
    expect(JSON.stringify(state).length).toBeLessThan(10_000);
  });

  it("forgets the least recently attempted item, the same one a scan of all remembered items picks, also after a stored copy", () => {
    const params = handParams();
    const state = initialLearnerState(params);
    // the eviction as it was first written: the lowest sequence number, the first of equals in key order
    const shadow: Record<string, [number, number, number]> = {};
    const touch = (key: string, y: number, seq: number) => {
      const it = shadow[key];
      if (it) {
        shadow[key] = [it[0] + 1, it[1] + y, seq];
        return;
      }
      if (Object.keys(shadow).length >= ITEM_MEMORY) {
        let oldest: string | undefined;
        for (const k in shadow) if (oldest === undefined || (shadow[k] as number[])[2]! < (shadow[oldest] as number[])[2]!) oldest = k;
        delete shadow[oldest as string];
      }
      shadow[key] = [1, y, seq];
    };
    const random = mulberry32(7);
    let current = state;
    for (let i = 0; i < 3000; i++) {
      // mostly new items, some repeats of recent ones: every eviction path is taken
      const key = random() < 0.6 ? `item-${i}` : `item-${Math.max(0, i - Math.floor(random() * 100))}`;
      const correct = random() < 0.5;
      applyGraded(current, params, undefined, { itemKey: key, objectives: ["A"], correct });
      touch(key, correct ? 1 : 0, current.seq);
      if (i % 700 === 0) current = structuredClone(current);
      expect(current.items).toEqual(shadow);
      expect(current.itemCount).toBe(Object.keys(shadow).length);
    }
  });
});

describe("updates", () => {
  it("correct answers raise the proficiency mean and shrink its variance; wrong answers lower it", () => {
    const params = handParams();
    const s = initialLearnerState(params);
    const before = proficiency(s, params, "A");
    applyGraded(s, params, undefined, { itemKey: "hard", objectives: ["A"], correct: 1 });
    const afterWin = proficiency(s, params, "A");
    expect(afterWin.mean).toBeGreaterThan(before.mean);
    expect(afterWin.variance).toBeLessThan(before.variance);
    const s2 = initialLearnerState(params);
    applyGraded(s2, params, undefined, { itemKey: "easy", objectives: ["A"], correct: 0 });
    expect(proficiency(s2, params, "A").mean).toBeLessThan(before.mean);
  });

  it("surprising answers move the belief more than expected ones", () => {
    const params = handParams();
    const a = initialLearnerState(params);
    const b = initialLearnerState(params);
    applyGraded(a, params, undefined, { itemKey: "hard", objectives: ["A"], correct: 1 });
    applyGraded(b, params, undefined, { itemKey: "easy", objectives: ["A"], correct: 1 });
    expect(a.objectives.A?.mu ?? 0).toBeGreaterThan(b.objectives.A?.mu ?? 0);
  });

  it("multi-objective items update every objective, splitting the evidence", () => {
    const params = handParams();
    const single = initialLearnerState(params);
    const multi = initialLearnerState(params);
    applyGraded(single, params, undefined, { itemKey: "x", objectives: ["A"], correct: 1 });
    applyGraded(multi, params, undefined, { itemKey: "x", objectives: ["A", "B"], correct: 1 });
    const a = multi.objectives.A?.mu ?? 0;
    const b = multi.objectives.B?.mu ?? 0;
    expect(a).toBeGreaterThan(0);
    expect(b).toBeCloseTo(a, 12);
    expect(a).toBeLessThan(single.objectives.A?.mu ?? 0);
    expect(multi.objectives.A?.n).toBe(1);
    expect(multi.objectives.B?.w).toBe(1);
  });

  it("ungraded work is a learning opportunity without correctness evidence", () => {
    const params = handParams();
    const s = initialLearnerState(params);
    applyUngraded(s, params, undefined, { itemKey: "video", objectives: ["A"] });
    const o = s.objectives.A;
    expect(o?.u).toBe(1);
    expect(o?.n).toBe(0);
    expect(o?.mu).toBeCloseTo(params.filter.ungradedGain, 12);
    expect(o?.v).toBe(params.filter.priorVarObjective);
    expect(s.global.n).toBe(0);
  });

  it("forgets with elapsed time when timestamps exist, and not when they are 0", () => {
    const params = handParams();
    const t0 = Date.UTC(2025, 0, 1);
    const run = (t1: number, t2: number): { mu: number; v: number } => {
      const s = initialLearnerState(params);
      for (let i = 0; i < 5; i++) applyGraded(s, params, undefined, { itemKey: "hard", objectives: ["A"], correct: 1, timeMs: t1 && t1 + i });
      const afterPractice = { mu: s.objectives.A?.mu ?? 0, v: s.objectives.A?.v ?? 0 };
      // An event on A at t2 first applies forgetting; read the state just before the update via a zero-evidence ungraded event.
      const p2 = { ...params, filter: { ...params.filter, ungradedGain: 0 } };
      applyUngraded(s, p2, undefined, { itemKey: "v", objectives: ["A"], timeMs: t2 });
      return { mu: (s.objectives.A?.mu ?? 0) - afterPractice.mu, v: (s.objectives.A?.v ?? 0) - afterPractice.v };
    };
    const noTime = run(0, 0);
    expect(noTime.mu).toBe(0);
    expect(noTime.v).toBe(0);
    const gap = run(t0, t0 + 60 * DAY);
    expect(gap.mu).toBeLessThan(0); // mean decays toward the prior (it was above it)
    expect(gap.v).toBeGreaterThan(0); // uncertainty grows
  });

  it("keeps time-decayed counts only when timestamps exist", () => {
    const params = handParams();
    const t0 = Date.UTC(2025, 0, 1);
    const timed = initialLearnerState(params);
    const untimed = initialLearnerState(params);
    applyGraded(timed, params, undefined, { itemKey: "easy", objectives: ["A"], correct: 1, timeMs: t0 });
    applyGraded(timed, params, undefined, { itemKey: "easy", objectives: ["A"], correct: 1, timeMs: t0 + DAY });
    applyGraded(untimed, params, undefined, { itemKey: "easy", objectives: ["A"], correct: 1 });
    expect(timed.objectives.A?.da).toBeCloseTo(1 + Math.exp(-1), 12);
    expect(timed.objectives.A?.dw).toBeCloseTo(1 + Math.exp(-1), 12);
    expect(untimed.objectives.A?.da).toBe(0);
    expect(untimed.objectives.A?.t).toBe(0);
  });
});

describe("prerequisite graph propagation", () => {
  const graph = buildGraph({ fractions: ["division"], division: ["multiplication"] });

  it("builds prerequisites and dependents", () => {
    expect(graph.prerequisites.fractions).toEqual(["division"]);
    expect(graph.dependents.multiplication).toEqual(["division"]);
  });

  it("success on an objective raises its prerequisites (strongly) and dependents (weakly)", () => {
    const params = handParams();
    const s = initialLearnerState(params);
    applyGraded(s, params, graph, { itemKey: "q", objectives: ["division"], correct: 1 });
    const d = s.objectives.division?.mu ?? 0;
    expect(d).toBeGreaterThan(0);
    expect(s.objectives.multiplication?.mu).toBeCloseTo(params.graph.strong * d, 12);
    expect(s.objectives.fractions?.mu).toBeCloseTo(params.graph.weak * d, 12);
    expect(s.objectives.multiplication?.v ?? 1).toBeLessThan(params.filter.priorVarObjective);
    expect(s.objectives.multiplication?.n).toBe(0);
  });

  it("failure on an objective lowers its dependents (strongly) and prerequisites (weakly)", () => {
    const params = handParams();
    const s = initialLearnerState(params);
    applyGraded(s, params, graph, { itemKey: "q", objectives: ["division"], correct: 0 });
    const d = s.objectives.division?.mu ?? 0;
    expect(d).toBeLessThan(0);
    expect(s.objectives.fractions?.mu).toBeCloseTo(params.graph.strong * d, 12);
    expect(s.objectives.multiplication?.mu).toBeCloseTo(params.graph.weak * d, 12);
  });

  it("without a graph, other objectives are untouched", () => {
    const params = handParams();
    const s = initialLearnerState(params);
    applyGraded(s, params, undefined, { itemKey: "q", objectives: ["division"], correct: 1 });
    expect(s.objectives.multiplication).toBeUndefined();
  });

  it("graph evidence changes predictions on neighbouring objectives", () => {
    const params = handParams();
    const withGraph = initialLearnerState(params);
    const without = initialLearnerState(params);
    for (let i = 0; i < 3; i++) {
      applyGraded(withGraph, params, graph, { itemKey: "q", objectives: ["fractions"], correct: 1 });
      applyGraded(without, params, undefined, { itemKey: "q", objectives: ["fractions"], correct: 1 });
    }
    const item = { itemKey: "m", objectives: ["division"] };
    expect(predictCorrect(withGraph, params, item)).toBeGreaterThan(predictCorrect(without, params, item));
  });
});

describe("prediction and proficiency", () => {
  it("predicts probabilities for known and unseen items and objectives", () => {
    const params = handParams();
    const s = initialLearnerState(params);
    for (const item of [
      { itemKey: "easy", objectives: ["A"] },
      { itemKey: "never-seen", objectives: ["B"] },
      { itemKey: "never-seen", objectives: ["unknown-objective"] },
    ]) {
      const p = predictCorrect(s, params, item);
      expect(p).toBeGreaterThan(0);
      expect(p).toBeLessThan(1);
    }
    expect(predictCorrect(s, params, { itemKey: "easy", objectives: ["A"] })).toBeGreaterThan(
      predictCorrect(s, params, { itemKey: "hard", objectives: ["A"] }),
    );
  });

  it("gives a credible interval that narrows with evidence and widens with the level", () => {
    const params = handParams();
    const s = initialLearnerState(params);
    const p0 = proficiency(s, params, "A", 0.9);
    expect(p0.lower).toBeLessThan(p0.mean);
    expect(p0.upper).toBeGreaterThan(p0.mean);
    expect(p0.pLower).toBeLessThan(p0.pCorrectAverageItem);
    expect(p0.pUpper).toBeGreaterThan(p0.pCorrectAverageItem);
    expect(proficiency(s, params, "A", 0.99).upper).toBeGreaterThan(p0.upper);
    for (let i = 0; i < 10; i++) applyGraded(s, params, undefined, { itemKey: "easy", objectives: ["A"], correct: 1 });
    const p1 = proficiency(s, params, "A", 0.9);
    expect(p1.upper - p1.lower).toBeLessThan(p0.upper - p0.lower);
    expect(p1.pCorrectAverageItem).toBeGreaterThan(p0.pCorrectAverageItem);
    expect(p1.attempts).toBe(10);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
  });

  it("refines item parameters online by bounded steps", () => {
    const params = handParams();
    for (let i = 0; i < 1000; i++) refineItem(params, { itemKey: "easy", objectives: ["A"] }, 1, 0.2);
    const e = params.items.easy;
    expect(e?.[3]).toBeCloseTo(params.refine.maxShift, 12);
    expect(e?.[0]).toBeCloseTo(0.5 + params.refine.maxShift, 12);
    refineItem(params, { itemKey: "brand-new", objectives: ["B"] }, 0, 0.7);
    expect(params.items["brand-new"]?.[0]).toBeLessThan(0);
  });
});

describe("parameters", () => {
  it("accepts parameters matching this code's feature layout and rejects others", () => {
    const params = handParams();
    expect(checkParams(params)).toBe(params);
    expect(() => checkParams({ ...params, featureNames: params.featureNames.slice(1), dense: params.dense.slice(1) })).toThrow();
  });
});

describe("metrics", () => {
  it("computes rank AUC with ties averaged, RMSE and accuracy", () => {
    expect(auc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])).toBeCloseTo(0.75, 12);
    expect(auc([0.5, 0.5, 0.5, 0.5], [0, 1, 0, 1])).toBeCloseTo(0.5, 12);
    expect(auc([0.2, 0.5, 0.5, 0.9], [0, 0, 1, 1])).toBeCloseTo(0.875, 12);
    expect(rmse([0, 1], [0, 0])).toBeCloseTo(Math.SQRT1_2, 12);
    expect(accuracy([0.2, 0.7, 0.6], [0, 1, 0])).toBeCloseTo(2 / 3, 12);
  });
});

describe("calibration", () => {
  it("fits plain-JSON parameters on synthetic data that predict held-out learners online", () => {
    const train = synthetic(80, 40, 11);
    const test = synthetic(30, 40, 99);
    const params = calibrate(train, {
      l2Grid: [
        { item: 8, objective: 1, counts: 5, dense: 0.1 },
        { item: 2, objective: 1, counts: 5, dense: 0.1 },
      ],
      folds: 3,
      maxIter: 60,
    });
    expect(JSON.parse(JSON.stringify(params))).toEqual(params);
    expect(params.dense).toHaveLength(FEATURE_NAMES.length);
    const p: number[] = [];
    const y: number[] = [];
    for (const seq of test) {
      const s = initialLearnerState(params);
      for (const ev of seq) {
        if (ev.kind !== "graded") continue;
        p.push(predictCorrect(s, params, ev));
        y.push(ev.correct ? 1 : 0);
        applyGraded(s, params, undefined, ev);
      }
    }
    expect(p.every((x) => x > 0 && x < 1)).toBe(true);
    expect(auc(p, y)).toBeGreaterThan(0.7);
    // Deterministic: same data, same parameters.
    expect(calibrate(train, { l2Grid: [{ item: 8, objective: 1, counts: 5, dense: 0.1 }], filterGrid: [params.filter], folds: 3, maxIter: 60 }).dense).toEqual(
      calibrate(train, { l2Grid: [{ item: 8, objective: 1, counts: 5, dense: 0.1 }], filterGrid: [params.filter], folds: 3, maxIter: 60 }).dense,
    );
  });
});
