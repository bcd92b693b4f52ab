/**
 * Per-registration metric values of the learner model (decisions.md "Metrics the spec only names"):
 * proficiency (per objective or per goal) and expected score (per goal). Pure.
 *
 * Both read beliefs through a projection; a registration's own state becomes a one-registration
 * projection with `stateProjection` (the Durable Object answers registration-level rows from its
 * state), an account-level projection works the same way.
 */
import { type BeliefFilter, objectiveBelief } from "./beliefs";
import { calibratedTerm, type ItemPool, type ScoreCalibration } from "./calibration";
import { uncalibratedPool } from "./predicted-score";
import { type AccountGraphProjection, PROJECTION_VERSION, type PublishableState } from "./projection";
import { type ScoreMemo, type ScoreTerm, shareDistribution } from "./score-distribution";
import { SCORE_CALIBRATION, SCORE_HORIZON } from "./score-params";

/** A one-registration projection of a learner state (no rounding; `nowMs` is not needed here). */
export function stateProjection(state: PublishableState, registrationId = "self"): AccountGraphProjection {
  const objectives: AccountGraphProjection["objectives"] = {};
  for (const k of Object.keys(state.objectives).sort()) {
    const o = state.objectives[k] as PublishableState["objectives"][string];
    objectives[k] = { beliefs: { [registrationId]: [o.mu, o.v, o.n, o.t, 0] }, answered: [] };
  }
  const g = state.global;
  return {
    version: PROJECTION_VERSION,
    accountId: "",
    graphId: "",
    registrations: { [registrationId]: { createdAt: 0, seq: 0, lastActivity: g.t, firstActivity: 0, removed: false, global: [g.mu, g.v, g.n, g.t, 0] } },
    objectives,
    lastActivity: g.t,
  };
}

export interface MetricContext {
  nowMs: number;
  filter: BeliefFilter;
  globalDifficulty: number;
  pool?: (objectiveId: string) => ItemPool | undefined;
  calibration?: ScoreCalibration;
  /** Per-term work shared by the goals of one request (one learner): see term-nodes.ts. */
  memo?: ScoreMemo;
}

export interface ProficiencyValue {
  /** Expected share of right answers on the objective's items (long run), 0..1. */
  proficiency: number;
  /** 95% credible interval of that share. */
  lower: number;
  upper: number;
  /** Graded answers on the objective(s). */
  evidence: number;
}

export interface ExpectedScoreValue {
  /** Expected share of right answers on the next SCORE_HORIZON answers per target. */
  expected_score: number;
  /** 95% interval (2.5th and 97.5th percentiles of the predicted-score distribution). */
  lower: number;
  upper: number;
  status: "estimated" | "insufficient_data";
}

/** Graded answers on the whole registration (all objectives) from which an untouched goal still counts as estimated. */
export const MIN_GLOBAL_EVIDENCE = 10;

const r4 = (x: number) => Math.round(x * 1e4) / 1e4;
const below1 = (x: number) => Math.min(0.9999, Math.max(0, Math.floor(x * 1e4) / 1e4));

function terms(
  projection: AccountGraphProjection | undefined,
  objectiveIds: readonly string[],
  answers: number,
  ctx: MetricContext,
): { terms: ScoreTerm[]; evidence: number } {
  const ids = [...new Set(objectiveIds)];
  let evidence = 0;
  const out = ids.map((id) => {
    const b = objectiveBelief(projection, id, ctx.nowMs, ctx.filter);
    evidence += b.evidence;
    const pool = ctx.pool?.(id) ?? uncalibratedPool(ctx.globalDifficulty);
    return { ...calibratedTerm(b, pool, ctx.calibration ?? SCORE_CALIBRATION, 1, answers), id: `${id}#${answers}` };
  });
  return { terms: out, evidence };
}

/**
 * Proficiency on one objective or, for a goal, on its target objectives (equal weights: the long-run
 * share of right answers on an item drawn from a random target). Value = mean, interval = central 95%.
 * Module targets are passed as the objectives of the module.
 */
export function proficiencyValue(projection: AccountGraphProjection | undefined, objectiveIds: readonly string[], ctx: MetricContext): ProficiencyValue {
  if (objectiveIds.length === 0) return { proficiency: 0, lower: 0, upper: 0, evidence: 0 };
  const t = terms(projection, objectiveIds, Infinity, ctx);
  const d = shareDistribution(t.terms, ctx.memo);
  return { proficiency: below1(d.mean), lower: below1(d.quantile(0.025)), upper: below1(d.quantile(0.975)), evidence: t.evidence };
}

/**
 * Expected score on a goal: the predicted-score distribution of the goal's targets (equal weights,
 * SCORE_HORIZON next answers each); value = its mean, interval = its 2.5th–97.5th percentiles.
 * `insufficient_data` when the learner has no graded answer on any target and fewer than
 * MIN_GLOBAL_EVIDENCE graded answers in the registration: the value is then mostly the population
 * prior (it is still returned, with its wide interval).
 */
export function expectedScoreValue(
  projection: AccountGraphProjection | undefined,
  targetObjectiveIds: readonly string[],
  ctx: MetricContext,
): ExpectedScoreValue {
  if (targetObjectiveIds.length === 0) return { expected_score: 0, lower: 0, upper: 0, status: "insufficient_data" };
  const t = terms(projection, targetObjectiveIds, SCORE_HORIZON, ctx);
  const d = shareDistribution(t.terms, ctx.memo);
  let globalEvidence = 0;
  for (const r of Object.values(projection?.registrations ?? {})) if (!r.removed && r.global) globalEvidence += r.global[2];
  const status = t.evidence > 0 || globalEvidence >= MIN_GLOBAL_EVIDENCE ? "estimated" : "insufficient_data";
  return { expected_score: r4(Math.min(0.9999, d.mean)), lower: below1(d.quantile(0.025)), upper: below1(d.quantile(0.975)), status };
}
