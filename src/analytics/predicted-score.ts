/**
 * Predicted score (spec 2.6 / 4.7) for one account on one graph, from its projection.
 *
 * The score of an objective is the share of right answers among the learner's next
 * `answersPerObjective` answers on it (default SCORE_HORIZON = 4, the spec's default coverage
 * requirement: the number of questions that covers an objective), for items drawn from the
 * objective's pool. Its distribution combines
 *   1. the calibrated ability belief (projection → beliefs.ts → calibration.ts): the model's
 *      uncertainty about the learner, larger for objectives never practised (prior fallback) and
 *      for objectives not practised for a while (forgetting);
 *   2. the spread of item difficulties in the pool;
 *   3. the binomial noise of a finite number of answers.
 * A group score is the weighted mean of its objectives' shares (weights w/Σw; an objective keeps its
 * own answers, weights only weigh them), with the objectives correlated through the global ability.
 * The overall score is the mean of the group scores (each group counts once), so with one group it
 * equals that group's score. The C-th percentile is the score the model believes the learner falls
 * below with probability C% (score-distribution.ts for the continuous representation of shares;
 * levels are clamped to [0.1%, 99.9%], so no percentile reaches 1.0).
 *
 * Coverage of an objective: distinct assessment modules answered on it (all registrations) ÷ the
 * coverage requirement, capped at 1; group coverage = unweighted mean over the group's objectives;
 * overall coverage = unweighted mean over all distinct requested objectives.
 */
import { type BeliefFilter, objectiveBelief } from "./beliefs";
import { calibratedTerm, type ItemPool, type ScoreCalibration } from "./calibration";
import { type AccountGraphProjection, coverage } from "./projection";
import { type LatticeCache, type ScoreMemo, type ScoreTerm, type ShareDistribution, shareDistribution } from "./score-distribution";
import { SCORE_CALIBRATION, SCORE_HORIZON, UNCALIBRATED_POOL_VARIANCE, WITHIN_OBJECTIVE_POOL_VARIANCE } from "./score-params";

export interface ScoreGroupRequest {
  groupId: string;
  objectives: { objectiveId: string; weight?: number }[];
}

export interface PredictedScoreOptions {
  /** Requested confidence levels, integers 0..100 (validated by the route). */
  confidenceLevels: readonly number[];
  /** Default 4. */
  coverageRequirement?: number;
  objectiveScores?: boolean;
  overall?: boolean;
  /** Horizon: next answers per objective the share is taken over (default SCORE_HORIZON). */
  answersPerObjective?: number;
}

export interface ScoreContext {
  /** Request time (ms): beliefs forget with the time since an objective's last event. */
  nowMs: number;
  /** Graph id reported in learning_objective_scores. */
  graphId: string;
  /** Prior variances and forgetting of the model the projection was published under. */
  filter: BeliefFilter;
  /** Item pool of an objective (see itemPool); undefined → uncalibratedPool(globalDifficulty). */
  pool?: (objectiveId: string) => ItemPool | undefined;
  /** Difficulty of an item nothing is known about (ModelParams.globalDifficulty). */
  globalDifficulty: number;
  calibration?: ScoreCalibration;
  /** The request's small-group lattices, shared by its accounts (they have the same groups). */
  lattices?: LatticeCache;
}

export interface ScoreAtConfidence {
  confidence_level: number;
  predicted_score: number;
}

export interface GroupScore {
  group_id: string;
  scores: ScoreAtConfidence[];
  group_learning_objective_coverage: number;
}

export interface ObjectiveScore {
  learning_objective_id: string;
  graph_id: string;
  scores: ScoreAtConfidence[];
  learning_objective_coverage: number;
}

/** One account's object in account_scores (spec 4.7; `grouped_scores` is the deprecated alias). */
export interface AccountScores {
  group_scores: GroupScore[];
  grouped_scores: GroupScore[];
  learning_objective_scores?: ObjectiveScore[];
  overall_score?: ScoreAtConfidence[];
  overall_learning_objective_coverage?: number;
}

/** Pool of an objective nothing is calibrated for: any item of the population. */
export function uncalibratedPool(globalDifficulty: number): ItemPool {
  return { meanDifficulty: globalDifficulty, difficultyVariance: UNCALIBRATED_POOL_VARIANCE };
}

/**
 * Pool from the calibrated difficulties of an objective's items: their mean, and their variance shrunk
 * toward the population's within-objective variance (5 pseudo-items), so a pool of one or two items
 * does not claim every item is alike. No items → uncalibratedPool.
 */
export function itemPool(difficulties: readonly number[], globalDifficulty: number): ItemPool {
  const n = difficulties.length;
  if (n === 0) return uncalibratedPool(globalDifficulty);
  let s = 0;
  for (const d of difficulties) s += d;
  const m = s / n;
  let ss = 0;
  for (const d of difficulties) ss += (d - m) ** 2;
  const prior = 5;
  return { meanDifficulty: m, difficultyVariance: (ss + prior * WITHIN_OBJECTIVE_POOL_VARIANCE) / (n - 1 + prior) };
}

/** Floors to 4 decimals (keeps values below 1 and the order of percentiles). */
const floor4 = (x: number) => Math.floor(x * 1e4) / 1e4;

function scoresAt(levels: readonly number[], quantile: (c: number) => number): ScoreAtConfidence[] {
  const order = levels.map((c, i) => [c, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<ScoreAtConfidence>(levels.length);
  let prev = 0;
  for (const [c, i] of order) {
    const v = Math.max(prev, Math.min(0.9999, Math.max(0, floor4(quantile(c / 100)))));
    prev = v;
    out[i] = { confidence_level: c, predicted_score: v };
  }
  return out;
}

/** Predicted scores of one account (its projection on the graph; undefined = nothing published yet: all prior). */
export function predictedScores(
  projection: AccountGraphProjection | undefined,
  groups: readonly ScoreGroupRequest[],
  options: PredictedScoreOptions,
  ctx: ScoreContext,
): AccountScores {
  const requirement = options.coverageRequirement ?? 4;
  const answers = options.answersPerObjective ?? SCORE_HORIZON;
  const calibration = ctx.calibration ?? SCORE_CALIBRATION;
  const levels = options.confidenceLevels;

  // Per objective, once per account: its term (id = the objective id, so the distribution code reuses
  // its per-term work in every group: term-nodes.ts), coverage and single-objective distribution.
  const memo: ScoreMemo = { terms: new Map(), lattices: ctx.lattices };
  const termCache = new Map<string, { term: ScoreTerm; coverage: number; alone?: ShareDistribution }>();
  const objective = (id: string) => {
    let t = termCache.get(id);
    if (!t) {
      const belief = objectiveBelief(projection, id, ctx.nowMs, ctx.filter);
      const pool = ctx.pool?.(id) ?? uncalibratedPool(ctx.globalDifficulty);
      const term = { ...calibratedTerm(belief, pool, calibration, 1, answers), id };
      t = { term, coverage: coverage(projection?.objectives[id]?.answered, requirement) };
      termCache.set(id, t);
    }
    return t;
  };
  const distributionOf = (terms: ScoreTerm[]): ShareDistribution => {
    if (terms.length !== 1) return shareDistribution(terms, memo);
    // One objective: its distribution does not depend on its weight.
    const t = objective((terms[0] as ScoreTerm).id as string);
    t.alone ??= shareDistribution([t.term], memo);
    return t.alone;
  };

  // Per group: weights summed per objective (an objective listed twice counts once, with both weights).
  const groupWeights = groups.map((g) => {
    const w = new Map<string, number>();
    for (const o of g.objectives) w.set(o.objectiveId, (w.get(o.objectiveId) ?? 0) + (o.weight ?? 1));
    return w;
  });

  const group_scores: GroupScore[] = groups.map((g, gi) => {
    const w = groupWeights[gi] as Map<string, number>;
    const terms = [...w].map(([id, weight]) => ({ ...objective(id).term, weight }));
    const cov = [...w.keys()].reduce((s, id) => s + objective(id).coverage, 0) / Math.max(1, w.size);
    const scores = terms.length ? scoresAt(levels, distributionOf(terms).quantile) : levels.map((c) => ({ confidence_level: c, predicted_score: 0 }));
    return { group_id: g.groupId, scores, group_learning_objective_coverage: cov };
  });
  const out: AccountScores = { group_scores, grouped_scores: group_scores };

  if (options.objectiveScores) {
    const ids = [...new Set(groups.flatMap((g) => g.objectives.map((o) => o.objectiveId)))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    out.learning_objective_scores = ids.map((id) => ({
      learning_objective_id: id,
      graph_id: ctx.graphId,
      scores: scoresAt(levels, distributionOf([objective(id).term]).quantile),
      learning_objective_coverage: objective(id).coverage,
    }));
  }

  if (options.overall) {
    // Mean of the group scores = Σ_k (mean over groups of w_k,g / Σ w_g) · Y_k.
    const combined = new Map<string, number>();
    groupWeights.forEach((w) => {
      let total = 0;
      for (const v of w.values()) total += v;
      for (const [id, v] of w) combined.set(id, (combined.get(id) ?? 0) + v / total / groups.length);
    });
    if (groups.length === 1 && group_scores[0]) out.overall_score = group_scores[0].scores;
    else if (combined.size)
      out.overall_score = scoresAt(levels, distributionOf([...combined].map(([id, weight]) => ({ ...objective(id).term, weight }))).quantile);
    else out.overall_score = levels.map((c) => ({ confidence_level: c, predicted_score: 0 }));
    out.overall_learning_objective_coverage = combined.size ? [...combined.keys()].reduce((s, id) => s + objective(id).coverage, 0) / combined.size : 0;
  }
  return out;
}
