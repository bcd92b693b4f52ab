/**
 * Offline calibration from historical event sequences (one sequence per learner, in order).
 *
 * 1. Filter item/objective difficulties: a penalised Rasch fit (calibration/rasch-tables.ts) or
 *    smoothed correct rates on the logit scale (calibration/rate-tables.ts).
 * 2. Filter hyper-parameters: small grid, chosen by the filter's own log-loss on held-out train learners.
 * 3. The logistic predictor (dense feature weights, item easiness, per-objective easiness and count
 *    weights) is fitted by L2-regularised maximum likelihood (L-BFGS) on the features produced by
 *    replaying the training sequences through the very same online update (calibration/design.ts).
 *    Difficulties used by the replay are cross-fitted (each learner's replay uses difficulties
 *    estimated without that learner), so the training features have the same distribution as on new
 *    learners. The L2 strengths are chosen on a held-out split of training learners.
 */

import { buildVocab, crossFittedDesign, difficultyTables, replayDesign } from "./calibration/design";
import type { DifficultyConfig, DifficultyTables } from "./calibration/difficulty-tables";
import { filterOnlyParams } from "./calibration/difficulty-tables";
import { fitLogistic, type L2Config, layout, scoreDesign } from "./calibration/logistic-fit";
import { capRows, shuffled, type TrainingSequence } from "./calibration/sequences";
import { logLoss } from "./evaluation-metrics";
import { DEFAULT_FILTER, type FilterParams, type ModelParams } from "./params";

export interface CalibrateOptions {
  seed?: number;
  /** Fraction of training learners held out for hyper-parameter selection (0 disables selection). */
  holdout?: number;
  /** Number of cross-fitting folds. */
  folds?: number;
  /** Candidate L2 configurations (first one is used when selection is disabled). */
  l2Grid?: L2Config[];
  /** Candidate filter parameters (first one used when selection is disabled). */
  filterGrid?: FilterParams[];
  /** How the filter's item difficulties are estimated: a penalised Rasch fit (default) or smoothed rates. */
  difficulty?: "rasch" | "rates";
  /** Include PFA-style learning covariates in the Rasch fit, so difficulties are not confounded by practice order. */
  raschLearning?: boolean;
  /** Candidate prior precisions of Rasch item offsets (selected by held-out filter log-loss). */
  raschItemPrecisionGrid?: number[];
  /** Cap on the rows used for hyper-parameter selection (a deterministic subsample of learners). */
  selectionMaxRows?: number;
  /** "rates" method: pseudo-counts pulling objective rates to the global rate, and item rates to their objectives'. */
  objectivePrior?: number;
  itemPrior?: number;
  maxIter?: number;
  log?: (msg: string) => void;
}

export const DEFAULT_L2_GRID: L2Config[] = [
  { item: 8, objective: 1, counts: 5, dense: 0.1 },
  { item: 3, objective: 1, counts: 5, dense: 0.1 },
  { item: 20, objective: 1, counts: 20, dense: 0.1 },
];

export function defaultFilterGrid(hasTime: boolean): FilterParams[] {
  const out: FilterParams[] = [];
  for (const pv of [0.3, 0.15, 0.6]) {
    for (const pg of [1.0, 0.6]) {
      for (const q of [0.03, 0.01, 0.06]) {
        for (const hl of hasTime ? [0, 30] : [0]) {
          out.push({ ...DEFAULT_FILTER, priorVarGlobal: pg, priorVarObjective: pv, noiseObjective: q, forgetHalfLifeDays: hl });
        }
      }
    }
  }
  return out;
}

/** Fits ModelParams from training sequences (one per learner, chronological). Deterministic given the seed. */
export function calibrate(sequences: readonly TrainingSequence[], options: CalibrateOptions = {}): ModelParams {
  const log = options.log ?? (() => {});
  const seed = options.seed ?? 1;
  const holdout = options.holdout ?? 0.2;
  const folds = options.folds ?? 5;
  const maxIter = options.maxIter ?? 150;
  const hasTime = sequences.some((s) => s.some((e) => (e.timeMs ?? 0) > 0));
  const l2Grid = options.l2Grid ?? DEFAULT_L2_GRID;
  const filterGrid = options.filterGrid ?? defaultFilterGrid(hasTime);
  const method = options.difficulty ?? "rasch";
  const precGrid = method === "rasch" ? (options.raschItemPrecisionGrid ?? [1, 0.5, 2]) : [1];
  const dc: DifficultyConfig = {
    method,
    raschItemPrecision: precGrid[0] ?? 1,
    raschLearning: options.raschLearning ?? true,
    objectivePrior: options.objectivePrior ?? 20,
    itemPrior: options.itemPrior ?? 5,
  };
  const vocab = buildVocab(sequences);
  const L = layout(vocab);

  let filter = filterGrid[0] ?? DEFAULT_FILTER;
  let l2 = l2Grid[0] ?? { item: 8, objective: 1, counts: 5, dense: 0.1 };
  const meta: Record<string, number | string> = {};

  const select = holdout > 0 && sequences.length >= 20 && (filterGrid.length > 1 || l2Grid.length > 1 || precGrid.length > 1);
  if (select) {
    // Hyper-parameters are chosen on a split of the training learners only (capped in size for speed).
    const pool = capRows(sequences, options.selectionMaxRows ?? 400_000, seed + 3);
    const nB = Math.max(1, Math.round(pool.length * holdout));
    const order = shuffled(pool, seed + 7);
    const B = order.slice(0, nB);
    const A = order.slice(nB);
    let tablesA = difficultyTables(A, dc);
    const filterLoss = (t: DifficultyTables, fp: FilterParams): number => {
      const d = replayDesign(B, filterOnlyParams(t, fp), vocab);
      return logLoss(d.filterP, d.y);
    };
    if (precGrid.length > 1) {
      let best = filterLoss(tablesA, filter);
      for (const prec of precGrid.slice(1)) {
        const t = difficultyTables(A, { ...dc, raschItemPrecision: prec });
        const ll = filterLoss(t, filter);
        if (ll < best) {
          best = ll;
          dc.raschItemPrecision = prec;
          tablesA = t;
        }
      }
      log(`rasch item precision selected: ${dc.raschItemPrecision} (held-out filter log-loss ${best.toFixed(4)})`);
    }
    if (filterGrid.length > 1) {
      let best = Infinity;
      for (const fp of filterGrid) {
        const ll = filterLoss(tablesA, fp);
        if (ll < best) {
          best = ll;
          filter = fp;
        }
      }
      log(`filter selected: ${JSON.stringify(filter)} (held-out filter log-loss ${best.toFixed(4)})`);
      meta.filterHoldoutLogLoss = best;
    }
    if (l2Grid.length > 1) {
      const dA = crossFittedDesign(A, folds, seed, filter, vocab, dc);
      const dB = replayDesign(B, filterOnlyParams(tablesA, filter), vocab);
      let best = Infinity;
      for (const cfg of l2Grid) {
        const w = fitLogistic(dA, L, cfg, maxIter);
        const s = scoreDesign(dB, L, w);
        log(`l2 ${JSON.stringify(cfg)}: held-out AUC ${s.auc.toFixed(4)} log-loss ${s.logLoss.toFixed(4)}`);
        if (s.logLoss < best) {
          best = s.logLoss;
          l2 = cfg;
        }
      }
      meta.l2HoldoutLogLoss = best;
    }
  }

  const design = crossFittedDesign(sequences, folds, seed, filter, vocab, dc);
  const w = fitLogistic(design, L, l2, maxIter);
  const params = filterOnlyParams(difficultyTables(sequences, dc), filter);
  params.dense = Array.from(w.subarray(0, L.F));
  for (const [key, i] of vocab.items) {
    const e = params.items[key];
    if (e) e[0] = w[L.offI + i]!;
  }
  for (const [key, k] of vocab.objectives) {
    const e = params.objectives[key];
    if (e) {
      e[0] = w[L.offOB + k]!;
      e[1] = w[L.offOW + k]!;
      e[2] = w[L.offOF + k]!;
    }
  }
  params.meta = {
    ...meta,
    l2: JSON.stringify(l2),
    difficulty: JSON.stringify(dc),
    learners: sequences.length,
    rows: design.n,
    items: vocab.items.size,
    objectives: vocab.objectives.size,
    folds,
    seed,
    hasTime: hasTime ? 1 : 0,
  };
  return params;
}
