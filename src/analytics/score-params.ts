/**
 * Shipped parameters of the predicted-score distribution, fitted on the assist2009_gervet TRAIN file
 * only (see docs/analytics.md and `npm run --silent eval:score`, which re-fits and prints them).
 */
import type { ScoreCalibration } from "./calibration";

/** Next answers per objective a predicted score is about (the spec's default coverage requirement). */
export const SCORE_HORIZON = 4;

/**
 * Fitted by maximum likelihood on 20% of the TRAIN learners (model fitted on the other 80%): the shifts and
 * the variance scale on next-4-answer shares per skill, sharedFromOwn on groups of 2-5 skills.
 */
export const SCORE_CALIBRATION: ScoreCalibration = { shiftUnpractised: -0.0875, shiftPractised: 0.1875, varianceScale: 1.822119, sharedFromOwn: 0.7262 };

/** Mean over objectives of the variance of calibrated item difficulties within an objective (TRAIN). */
export const WITHIN_OBJECTIVE_POOL_VARIANCE = 0.41;
/** Variance of calibrated item difficulties over all items (TRAIN): an objective nothing is calibrated for. */
export const UNCALIBRATED_POOL_VARIANCE = 0.83;
