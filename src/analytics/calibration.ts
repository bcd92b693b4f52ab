/**
 * Calibration of the predicted-score distribution: parameters, the term built from a belief, and the
 * offline fit (maximum likelihood of observed shares; used by scripts/eval-score.ts on TRAIN only).
 */
import { groupCell, groupHalfCell, type ScoreTerm, shareCell, shareDistribution } from "./score-distribution";

export interface ScoreCalibration {
  /** Logit shift added to the ability mean of an objective with no graded answer yet (prior fallback). */
  shiftUnpractised: number;
  /** Logit shift added to the ability mean of a practised objective (learning during the horizon). */
  shiftPractised: number;
  /** Multiplier on the ability variance (shared and own parts); > 1 widens the distribution. */
  varianceScale: number;
  /**
   * Share ρ ∈ [0, 1] of each objective's own variance moved to the part shared by all objectives
   * (shared + ρ·own, (1 − ρ)·own): the correlation between a learner's objectives beyond the global
   * ability. Leaves every single-objective distribution unchanged; widens group scores.
   */
  sharedFromOwn: number;
}

export const IDENTITY_CALIBRATION: ScoreCalibration = { shiftUnpractised: 0, shiftPractised: 0, varianceScale: 1, sharedFromOwn: 0 };

/** The ability belief on one objective, as the projection summarises it (see projection.ts). */
export interface AbilityBelief {
  /** Mean ability (logit scale): global ability plus the objective's offset. */
  mean: number;
  /** Total variance of the ability. */
  variance: number;
  /** Part of `variance` shared with every other objective of the learner (the global ability). */
  sharedVariance: number;
  /** Graded answers on the objective (all registrations). */
  evidence: number;
}

/** Difficulty distribution of the items of an objective (logit scale). */
export interface ItemPool {
  meanDifficulty: number;
  difficultyVariance: number;
}

/**
 * π(θ) = E_d σ(θ − d) for d ~ N(d̄, σ_d²) ≈ σ((θ − d̄)/√(1 + πσ_d²/8)): the slope folding the item spread in.
 */
export function poolSlope(pool: ItemPool): number {
  return 1 / Math.sqrt(1 + (Math.PI * Math.max(0, pool.difficultyVariance)) / 8);
}

/** The score term of one objective under a calibration. */
export function calibratedTerm(belief: AbilityBelief, pool: ItemPool, calibration: ScoreCalibration, weight: number, answers: number): ScoreTerm {
  const shift = belief.evidence > 0 ? calibration.shiftPractised : calibration.shiftUnpractised;
  const shared = Math.max(0, Math.min(belief.sharedVariance, belief.variance));
  const own = Math.max(0, belief.variance - shared);
  const rho = Math.min(1, Math.max(0, calibration.sharedFromOwn ?? 0));
  return {
    mean: belief.mean + shift,
    shared: calibration.varianceScale * (shared + rho * own),
    own: calibration.varianceScale * (1 - rho) * own,
    difficulty: pool.meanDifficulty,
    slope: poolSlope(pool),
    weight,
    answers,
  };
}

/** One observed outcome for calibration and evaluation: the belief before, and x right out of n next answers. */
export interface ScoreCase {
  belief: AbilityBelief;
  pool: ItemPool;
  right: number;
  answers: number;
}

/** Mean log-probability of the observed shares (the cell probability = P(X = x)). */
export function caseLogLikelihood(cases: readonly ScoreCase[], calibration: ScoreCalibration): number {
  let ll = 0;
  for (const c of cases) {
    const d = shareDistribution([calibratedTerm(c.belief, c.pool, calibration, 1, c.answers)]);
    const [lo, hi] = shareCell(c.right, c.answers);
    ll += Math.log(Math.max(1e-12, d.cdf(hi) - d.cdf(lo)));
  }
  return ll / Math.max(1, cases.length);
}

/**
 * Fits the calibration by maximum likelihood (coordinate search with shrinking steps; deterministic).
 * Shifts are searched in [-1, 1], the variance scale in [0.25, 8] (on the log scale).
 */
export function fitCalibration(cases: readonly ScoreCase[], log?: (msg: string) => void): ScoreCalibration {
  let x = [0, 0, 0]; // shiftUnpractised, shiftPractised, log(varianceScale)
  const toCal = (v: number[]): ScoreCalibration => ({
    shiftUnpractised: v[0]!,
    shiftPractised: v[1]!,
    varianceScale: Math.exp(v[2]!),
    sharedFromOwn: 0,
  });
  const bounds: [number, number][] = [
    [-1, 1],
    [-1, 1],
    [Math.log(0.25), Math.log(8)],
  ];
  const unpractised = cases.filter((c) => c.belief.evidence === 0);
  const practised = cases.filter((c) => c.belief.evidence > 0);
  // The shifts only touch their own subset; the variance scale touches both.
  const subsetLl = (i: number, v: number[]): number => {
    if (i === 0) return caseLogLikelihood(unpractised, toCal(v)) * unpractised.length;
    if (i === 1) return caseLogLikelihood(practised, toCal(v)) * practised.length;
    return caseLogLikelihood(cases, toCal(v)) * cases.length;
  };
  let step = 0.4;
  for (let round = 0; round < 7; round++) {
    for (let i = 0; i < 3; i++) {
      let best = subsetLl(i, x);
      for (;;) {
        let moved = false;
        for (const dir of [1, -1]) {
          const y = [...x];
          const [lo, hi] = bounds[i] as [number, number];
          y[i] = Math.min(hi, Math.max(lo, y[i]! + dir * step));
          if (y[i] === x[i]) continue;
          const v = subsetLl(i, y);
          if (v > best + 1e-9) {
            best = v;
            x = y;
            moved = true;
            break;
          }
        }
        if (!moved) break;
      }
    }
    log?.(`calibration round ${round}: ${JSON.stringify(toCal(x))} ll ${caseLogLikelihood(cases, toCal(x)).toFixed(5)}`);
    step /= 2;
  }
  const r = toCal(x);
  return { shiftUnpractised: round6(r.shiftUnpractised), shiftPractised: round6(r.shiftPractised), varianceScale: round6(r.varianceScale), sharedFromOwn: 0 };
}

/** An observed group outcome: per objective the belief before, its pool, and x right out of n next answers. */
export interface GroupScoreCase {
  terms: ScoreCase[];
}

/** Mean log-probability of the observed group shares' cells (equal weights). */
export function groupLogLikelihood(cases: readonly GroupScoreCase[], calibration: ScoreCalibration): number {
  let ll = 0;
  for (const c of cases) {
    const d = shareDistribution(c.terms.map((t) => calibratedTerm(t.belief, t.pool, calibration, 1, t.answers)));
    const share = c.terms.reduce((s, t) => s + t.right / t.answers, 0) / c.terms.length;
    const [lo, hi] = groupCell(
      share,
      groupHalfCell(
        c.terms.map(() => 1),
        c.terms.map((t) => t.answers),
      ),
    );
    ll += Math.log(Math.max(1e-12, d.cdf(hi) - d.cdf(lo)));
  }
  return ll / Math.max(1, cases.length);
}

/** Fits sharedFromOwn on group outcomes, the rest of `calibration` fixed (golden-section search on [0, 1]). */
export function fitSharedFromOwn(cases: readonly GroupScoreCase[], calibration: ScoreCalibration, log?: (msg: string) => void): ScoreCalibration {
  const f = (rho: number) => groupLogLikelihood(cases, { ...calibration, sharedFromOwn: rho });
  let a = 0;
  let b = 1;
  const g = (Math.sqrt(5) - 1) / 2;
  let c = b - g * (b - a);
  let d = a + g * (b - a);
  let fc = f(c);
  let fd = f(d);
  for (let i = 0; i < 20; i++) {
    if (fc > fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - g * (b - a);
      fc = f(c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + g * (b - a);
      fd = f(d);
    }
  }
  let rho = (a + b) / 2;
  // The ends are candidates too (the optimum may sit on the boundary).
  for (const e of [0, 1]) if (f(e) > f(rho)) rho = e;
  log?.(`sharedFromOwn ${rho.toFixed(4)} group ll ${f(rho).toFixed(5)} (ρ = 0: ${f(0).toFixed(5)})`);
  return { ...calibration, sharedFromOwn: Math.round(rho * 1e4) / 1e4 };
}

const round6 = (v: number) => Math.round(v * 1e6) / 1e6;

/** Fraction of the observed share's cell [lo, hi) lying below q: the share "fell below q" with this weight. */
export function cellBelow(q: number, right: number, answers: number): number {
  const [lo, hi] = shareCell(right, answers);
  return Math.min(1, Math.max(0, (q - lo) / (hi - lo)));
}

export interface ReliabilityRow {
  cases: number;
  /** Per requested level (0..1): the observed share of outcomes below the predicted percentile. */
  below: number[];
  /** Mean of (highest − lowest requested percentile). */
  width: number;
  /** Mean predicted share minus mean observed share. */
  bias: number;
}

/** Reliability of predicted percentiles: `percentiles(c)` gives the percentiles (same order as `levels`) of case c. */
export function reliability<T extends { right: number; answers: number }>(
  cases: readonly T[],
  levels: readonly number[],
  percentiles: (c: T) => { values: number[]; mean: number },
): ReliabilityRow {
  const below = levels.map(() => 0);
  let width = 0;
  let bias = 0;
  for (const c of cases) {
    const p = percentiles(c);
    for (const [i, q] of p.values.entries()) below[i] = below[i]! + cellBelow(q, c.right, c.answers);
    width += p.values[p.values.length - 1]! - p.values[0]!;
    bias += p.mean - c.right / c.answers;
  }
  const n = Math.max(1, cases.length);
  return { cases: cases.length, below: below.map((b) => b / n), width: width / n, bias: bias / n };
}
