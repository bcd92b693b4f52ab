import { describe, expect, it } from "vitest";
import { objectiveBelief } from "../../../src/analytics/beliefs";
import { calibratedTerm, IDENTITY_CALIBRATION } from "../../../src/analytics/calibration";
import { itemPool, predictedScores, type ScoreContext } from "../../../src/analytics/predicted-score";
import { type AccountGraphProjection, applyProjectionMessage, type ProjectionMessage } from "../../../src/analytics/projection";
import { type ScoreTerm, shareDistribution } from "../../../src/analytics/score-distribution";
import { mulberry32, sigmoid } from "../../../src/model/math";

const filter = { priorVarGlobal: 1, priorVarObjective: 0.3, forgetVarPerDay: 0.01 };
const ctx: ScoreContext = { nowMs: 0, graphId: "gref-g", filter, globalDifficulty: 0 };
const LEVELS = [0, 1, 10, 25, 50, 75, 90, 99, 100];

function msg(p: Partial<ProjectionMessage> & { objectives?: ProjectionMessage["objectives"] }): ProjectionMessage {
  return { version: 1, accountId: "a", graphId: "g", registrationId: "r1", registrationCreatedAt: 1, seq: 1, lastActivity: 0, global: [0, 1, 0, 0], ...p };
}

function projectionWith(global: [number, number, number, number], objectives: ProjectionMessage["objectives"]): AccountGraphProjection {
  return applyProjectionMessage(undefined, msg({ global, objectives }));
}

const strong = projectionWith([2.5, 0.02, 200, 0], { "lref-a": [1, 0.03, 40, 0], "lref-b": [0.5, 0.05, 20, 0] });
const weak = projectionWith([-2, 0.03, 100, 0], { "lref-a": [-1, 0.04, 30, 0] });

function expectPercentiles(scores: { confidence_level: number; predicted_score: number }[]): void {
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i]!;
    expect(s.predicted_score).toBeGreaterThanOrEqual(0);
    expect(s.predicted_score).toBeLessThan(1);
    if (i > 0) expect(s.predicted_score).toBeGreaterThanOrEqual(scores[i - 1]!.predicted_score);
  }
}

describe("predicted score percentiles", () => {
  it("are non-decreasing in the level and below 1.0, for strong, weak and unknown learners, single objectives, groups and overall", () => {
    for (const p of [strong, weak, undefined]) {
      for (const answers of [1, 4, 25, undefined, Infinity]) {
        const r = predictedScores(
          p,
          [
            { groupId: "one", objectives: [{ objectiveId: "lref-a" }] },
            { groupId: "two", objectives: [{ objectiveId: "lref-a", weight: 3 }, { objectiveId: "lref-b" }, { objectiveId: "lref-c", weight: 2 }] },
          ],
          { confidenceLevels: LEVELS, objectiveScores: true, overall: true, answersPerObjective: answers },
          ctx,
        );
        for (const g of r.group_scores) expectPercentiles(g.scores);
        for (const o of r.learning_objective_scores ?? []) expectPercentiles(o.scores);
        expectPercentiles(r.overall_score ?? []);
      }
    }
  });

  it("keeps the order of the requested levels and reports them as given", () => {
    const r = predictedScores(strong, [{ groupId: "g", objectives: [{ objectiveId: "lref-a" }] }], { confidenceLevels: [90, 10, 50] }, ctx);
    const s = r.group_scores[0]!.scores;
    expect(s.map((x) => x.confidence_level)).toEqual([90, 10, 50]);
    expect(s[1]!.predicted_score).toBeLessThanOrEqual(s[2]!.predicted_score);
    expect(s[2]!.predicted_score).toBeLessThanOrEqual(s[0]!.predicted_score);
  });

  it("is a distribution: a stronger learner scores higher at every level, and the interval is not a fixed offset", () => {
    const req = [{ groupId: "g", objectives: [{ objectiveId: "lref-a" }] }];
    const s = predictedScores(strong, req, { confidenceLevels: [10, 50, 90] }, ctx).group_scores[0]!.scores;
    const w = predictedScores(weak, req, { confidenceLevels: [10, 50, 90] }, ctx).group_scores[0]!.scores;
    for (let i = 0; i < 3; i++) expect(s[i]!.predicted_score).toBeGreaterThan(w[i]!.predicted_score);
    const width = (x: typeof s) => x[2]!.predicted_score - x[0]!.predicted_score;
    expect(Math.abs(width(s) - width(w))).toBeGreaterThan(0.01);
  });

  it("an objective never practised falls back to the prior and shows it: wider than a practised one for the same learner", () => {
    const opts = { confidenceLevels: [10, 90], answersPerObjective: Infinity };
    const practised = predictedScores(strong, [{ groupId: "g", objectives: [{ objectiveId: "lref-a" }] }], opts, ctx).group_scores[0]!.scores;
    const unknown = predictedScores(strong, [{ groupId: "g", objectives: [{ objectiveId: "lref-zzz" }] }], opts, ctx).group_scores[0]!.scores;
    expect(unknown[1]!.predicted_score - unknown[0]!.predicted_score).toBeGreaterThan(practised[1]!.predicted_score - practised[0]!.predicted_score);
    const b = objectiveBelief(strong, "lref-zzz", 0, filter);
    expect(b.evidence).toBe(0);
    expect(b.variance).toBeCloseTo(0.02 + 0.3, 6);
    // Nothing published at all: the population prior.
    const none = objectiveBelief(undefined, "lref-a", 0, filter);
    expect(none).toEqual({ mean: 0, variance: 1.3, sharedVariance: 1, evidence: 0 });
  });

  it("overall equals the group score with one group; weights do not change per-objective scores; objectives ordered by id", () => {
    const groups = [{ groupId: "g", objectives: [{ objectiveId: "lref-b", weight: 5 }, { objectiveId: "lref-a" }] }];
    const r = predictedScores(strong, groups, { confidenceLevels: [10, 50, 90], overall: true, objectiveScores: true }, ctx);
    expect(r.overall_score).toEqual(r.group_scores[0]!.scores);
    expect(r.grouped_scores).toEqual(r.group_scores);
    expect(r.learning_objective_scores!.map((o) => o.learning_objective_id)).toEqual(["lref-a", "lref-b"]);
    const r2 = predictedScores(
      strong,
      [{ groupId: "g", objectives: [{ objectiveId: "lref-b" }, { objectiveId: "lref-a", weight: 7 }] }],
      { confidenceLevels: [10, 50, 90], objectiveScores: true },
      ctx,
    );
    expect(r2.learning_objective_scores).toEqual(r.learning_objective_scores);
    expect(r2.group_scores[0]!.scores).not.toEqual(r.group_scores[0]!.scores);
  });

  /** Simulates the group share and its continuous representation (cells of width 1/N, half cells at 0 and 1). */
  function simulate(terms: ScoreTerm[], N: number, seed: number): Float64Array {
    const rand = mulberry32(seed);
    const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
    const ws = terms.reduce((s, t) => s + t.weight, 0);
    let invN = 0;
    for (const t of terms) invN += (t.weight / ws) ** 2 / t.answers;
    const half = invN / 2;
    const out = new Float64Array(N);
    for (let i = 0; i < N; i++) {
      const zg = gauss();
      let s = 0;
      for (const t of terms) {
        const p = sigmoid(t.slope * (t.mean + Math.sqrt(t.shared) * zg + Math.sqrt(t.own) * gauss() - t.difficulty));
        let x = 0;
        for (let j = 0; j < t.answers; j++) if (rand() < p) x++;
        s += ((t.weight / ws) * x) / t.answers;
      }
      if (s <= 1e-12) s = rand() * half;
      else if (s >= 1 - 1e-12) s = 1 - half + rand() * half;
      else s = Math.min(1 - half, Math.max(half, s + (rand() - 0.5) * invN));
      out[i] = s;
    }
    return out.sort();
  }

  it("the group paths (exact on a small lattice, normal approximation beyond) agree with a simulation of the same model", () => {
    const small: ScoreTerm[] = [
      { mean: 1.2, shared: 0.2, own: 0.1, difficulty: 0, slope: 0.9, weight: 1, answers: 4 },
      { mean: 0.2, shared: 0.2, own: 0.3, difficulty: 0.3, slope: 0.85, weight: 1, answers: 4 },
      { mean: -0.5, shared: 0.2, own: 0.3, difficulty: -0.2, slope: 0.9, weight: 1, answers: 4 },
    ];
    const large: ScoreTerm[] = Array.from({ length: 12 }, (_, i) => ({
      mean: 1.5 + (i % 3) * 0.4 - 0.4,
      shared: 0.1,
      own: 0.3,
      difficulty: 0,
      slope: 0.9,
      weight: 1 + (i % 2),
      answers: 4,
    }));
    for (const terms of [small, large]) {
      const d = shareDistribution(terms);
      const s = simulate(terms, 100_000, 7);
      for (const c of [0.1, 0.5, 0.9]) expect(Math.abs(d.quantile(c) - s[Math.floor(c * s.length)]!)).toBeLessThan(0.01);
    }
  });

  it("the single-objective path is exact against simulation (binomial mixture)", () => {
    const t: ScoreTerm = { mean: 0.8, shared: 0.3, own: 0.2, difficulty: 0, slope: 0.9, weight: 1, answers: 4 };
    const d = shareDistribution([t]);
    const rand = mulberry32(3);
    const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
    const counts = [0, 0, 0, 0, 0];
    const N = 200_000;
    for (let i = 0; i < N; i++) {
      const p = sigmoid(t.slope * (t.mean + Math.sqrt(0.5) * gauss()));
      let x = 0;
      for (let j = 0; j < 4; j++) if (rand() < p) x++;
      counts[x]!++;
    }
    const cells = [0, 0.125, 0.375, 0.625, 0.875, 1];
    for (let x = 0; x <= 4; x++) expect(Math.abs(d.cdf(cells[x + 1]!) - d.cdf(cells[x]!) - counts[x]! / N)).toBeLessThan(0.005);
  });

  it("calibration widens and shifts the ability belief", () => {
    const b = { mean: 0.5, variance: 0.4, sharedVariance: 0.1, evidence: 3 };
    const pool = itemPool([0.1, -0.1, 0.3], 0);
    const t = calibratedTerm(b, pool, { shiftUnpractised: -1, shiftPractised: 0.2, varianceScale: 2, sharedFromOwn: 0 }, 1, 4);
    expect(t.mean).toBeCloseTo(0.7);
    expect(t.shared + t.own).toBeCloseTo(0.8);
    expect(
      calibratedTerm({ ...b, evidence: 0 }, pool, { shiftUnpractised: -1, shiftPractised: 0.2, varianceScale: 2, sharedFromOwn: 0 }, 1, 4).mean,
    ).toBeCloseTo(-0.5);
    expect(calibratedTerm(b, pool, IDENTITY_CALIBRATION, 1, 4).shared).toBeCloseTo(0.1);
    expect(pool.meanDifficulty).toBeCloseTo(0.1);
    // sharedFromOwn moves variance between the parts without changing the total.
    const moved = calibratedTerm(b, pool, { ...IDENTITY_CALIBRATION, sharedFromOwn: 0.5 }, 1, 4);
    expect(moved.shared).toBeCloseTo(0.1 + 0.15);
    expect(moved.shared + moved.own).toBeCloseTo(0.4);
  });
});
