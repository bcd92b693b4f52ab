/**
 * Readiness forecast per goal: the probability that the learner meets the goal's completion criteria
 * by its deadline at their observed pace, and the projected completion date. Pure.
 *
 * Pace (from the registration's graded answers per local day, ActivitySummary):
 *   window   = the last PACE_WINDOW_DAYS days up to now, starting no earlier than the goal's assignment
 *              (or, unknown, the registration's first event); at least one day;
 *   ρ        = share of the window's days with at least one graded answer, Beta(PRIOR_ACTIVE_DAYS,
 *              PRIOR_IDLE_DAYS) prior (a learner who has not started after a week is slow, not unknown);
 *   μ, σ²    = mean and variance of graded answers on an active day (prior: PRIOR_ITEMS_PER_DAY,
 *              weight PRIOR_DAY_WEIGHT days).
 * Answers in the T (fractional) days left: N_T ≈ Normal with
 *   E N_T = T ρ μ,  Var N_T = T (ρ σ² + ρ(1−ρ) μ²) + T² (μ² Var ρ̂ + ρ² Var μ̂)
 * (day-to-day noise plus the uncertainty of the pace itself). Work remaining W (expected further
 * assessing items, from the policy) has mean w and standard deviation s (default √max(1, w)).
 *   P(ready) = Φ((E N_T − w + ½) / √(Var N_T + s²))
 * which increases with the deadline. The projected completion is now + w / (ρ μ) days (when the
 * expected count reaches the work remaining); null when the goal is complete without a known time,
 * the work remaining is unknown, the learner has no graded answer in the window, or it is more than
 * MAX_PROJECTION_DAYS away.
 */

import { type ActivitySummary, localDay } from "./active-time";
import { normalCdf } from "./numeric";

export const PACE_WINDOW_DAYS = 28;
export const PRIOR_ACTIVE_DAYS = 1;
export const PRIOR_IDLE_DAYS = 2;
export const PRIOR_ITEMS_PER_DAY = 8;
export const PRIOR_DAY_WEIGHT = 1;
export const MAX_PROJECTION_DAYS = 365;

const DAY_MS = 86_400_000;
const QUARTER_MS = 900_000;

export interface WorkRemaining {
  /** Expected further assessing items to meet the completion criteria (≥ 0). */
  expected: number;
  /** Its standard deviation, if the policy knows it. */
  sd?: number;
}

export interface ReadinessInput {
  nowMs: number;
  /** Deadline (timing.end, or the assignment time plus timing.relative_deadline); null = none. */
  deadlineMs: number | null;
  /** Completion criteria already met (and when, if known). */
  complete: boolean;
  completedAtMs?: number;
  /** null when the policy cannot estimate it (work_remaining −1). */
  workRemaining: WorkRemaining | null;
  /** When the goal was assigned to the registration (start of the pace window), if known. */
  assignedAtMs?: number;
  activity: ActivitySummary;
  /** Day boundaries for counting active days (default UTC). */
  utcOffsetMinutes?: number;
}

export interface Pace {
  /** Days in the observation window. */
  windowDays: number;
  activeDays: number;
  gradedItems: number;
  /** Estimated probability that a day is active, and answers per active day (mean, variance). */
  activeDayRate: number;
  itemsPerActiveDay: number;
  itemsPerActiveDayVariance: number;
  /** Expected graded answers per calendar day. */
  itemsPerDay: number;
}

export interface ReadinessForecast {
  /** null when there is no deadline or the work remaining is unknown. */
  probability_ready_by_end: number | null;
  /** ISO 8601 UTC, or null when it cannot be said. */
  projected_completion: string | null;
  pace: Pace;
}

/** The learner's observed pace over the window ending at `nowMs`. */
export function observedPace(activity: ActivitySummary, nowMs: number, startMs: number | undefined, utcOffsetMinutes = 0): Pace {
  const today = localDay(nowMs, utcOffsetMinutes);
  const start = startMs && startMs > 0 ? startMs : activity.firstEndMs > 0 ? activity.firstEndMs : nowMs;
  const firstDay = Math.max(today - PACE_WINDOW_DAYS + 1, Math.min(today, localDay(start, utcOffsetMinutes)));
  // Today counts in proportion to the part of it that has passed.
  const partOfToday = (nowMs + utcOffsetMinutes * 60_000 - today * DAY_MS) / DAY_MS;
  const windowDays = Math.max(1, today - firstDay + Math.max(partOfToday, 1 / 24));
  const perDay = new Map<number, number>();
  for (const [k, t] of Object.entries(activity.buckets)) {
    if (t[3] <= 0) continue;
    const day = Math.floor((Number(k) * QUARTER_MS + utcOffsetMinutes * 60_000) / DAY_MS);
    if (day < firstDay || day > today) continue;
    perDay.set(day, (perDay.get(day) ?? 0) + t[3]);
  }
  const counts = [...perDay.values()];
  const activeDays = counts.length;
  const gradedItems = counts.reduce((s, c) => s + c, 0);
  const a = activeDays + PRIOR_ACTIVE_DAYS;
  const b = Math.max(0, windowDays - activeDays) + PRIOR_IDLE_DAYS;
  const activeDayRate = a / (a + b);
  const w0 = PRIOR_DAY_WEIGHT;
  const mu = (gradedItems + w0 * PRIOR_ITEMS_PER_DAY) / (activeDays + w0);
  let ss = w0 * PRIOR_ITEMS_PER_DAY; // prior: Poisson-like variance
  for (const c of counts) ss += (c - mu) ** 2;
  const variance = ss / (activeDays + w0);
  return { windowDays, activeDays, gradedItems, activeDayRate, itemsPerActiveDay: mu, itemsPerActiveDayVariance: variance, itemsPerDay: activeDayRate * mu };
}

/** Probability of meeting the completion criteria by the deadline, and the projected completion. */
export function readinessForecast(input: ReadinessInput): ReadinessForecast {
  const offset = input.utcOffsetMinutes ?? 0;
  const pace = observedPace(input.activity, input.nowMs, input.assignedAtMs, offset);
  if (input.complete) {
    const done = input.completedAtMs ?? null;
    return {
      probability_ready_by_end: input.deadlineMs === null ? null : done === null || done <= input.deadlineMs ? 1 : 0,
      projected_completion: done === null ? null : new Date(done).toISOString(),
      pace,
    };
  }
  const w = input.workRemaining;
  if (!w || !(w.expected >= 0)) return { probability_ready_by_end: null, projected_completion: null, pace };
  const rho = pace.activeDayRate;
  const mu = pace.itemsPerActiveDay;
  let probability: number | null = null;
  if (input.deadlineMs !== null) {
    const T = (input.deadlineMs - input.nowMs) / DAY_MS;
    if (T <= 0) probability = w.expected <= 0 ? 1 : 0;
    else {
      const nEff = pace.windowDays + PRIOR_ACTIVE_DAYS + PRIOR_IDLE_DAYS;
      const varRho = (rho * (1 - rho)) / (nEff + 1);
      const varMu = pace.itemsPerActiveDayVariance / (pace.activeDays + PRIOR_DAY_WEIGHT);
      const mean = T * rho * mu;
      const variance = T * (rho * pace.itemsPerActiveDayVariance + rho * (1 - rho) * mu * mu) + T * T * (mu * mu * varRho + rho * rho * varMu);
      const sd = w.sd ?? Math.sqrt(Math.max(1, w.expected));
      probability = normalCdf((mean - w.expected + 0.5) / Math.sqrt(variance + sd * sd));
    }
  }
  let projected: string | null = null;
  if (pace.activeDays > 0 && pace.itemsPerDay > 0) {
    const days = w.expected / pace.itemsPerDay;
    if (days <= MAX_PROJECTION_DAYS) projected = new Date(input.nowMs + days * DAY_MS).toISOString();
  }
  return { probability_ready_by_end: probability === null ? null : Math.round(probability * 1e4) / 1e4, projected_completion: projected, pace };
}
