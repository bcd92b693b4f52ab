/**
 * The tutor state: what the policy remembers per registration beyond the learner model — the last
 * items, and per objective the opportunity counters and the belief trajectory summary the stuck rule
 * needs. Updated by a pure function per event, so it is a deterministic function of the event
 * sequence (a replay of the log rebuilds it exactly). Size: one fixed-size record per objective the
 * learner touched plus RECENT items.
 */
import { applyEvent, type LearnerEvent, type LearnerState, type ModelParams, type PrereqGraph } from "../model";
import { belief, lowerLogit } from "./belief";
import { POLICY } from "./config";
import { instruct, LOG_ZERO, observe } from "./knowledge";
import type { ObjectiveTrack, TutorState } from "./types";

const RECENT = 5;
const OUTCOME_BITS = 0xffff;

export function initialTutorState(): TutorState {
  return { version: 2, seq: 0, recent: [], lastObjectives: [], lastOutcome: -1, learned: 0, learnedFails: 0, obj: {} };
}

function newTrack(): ObjectiveTrack {
  return { n: 0, w: 0, u: 0, uAt: -1, f: 0, o: 0, hi: 0, hiAt: 0, rvSeq: 0, sk: 0, ls: 0, last: 0, kk: 0, kl: LOG_ZERO, ku: 0, kn: 0 };
}

/**
 * Applies one event to the learner state (exactly `applyEvent`) and to the tutor state. This is what
 * the RegistrationObject runs per event; replaying the log through it rebuilds both states.
 */
export function applyTutoredEvent(state: LearnerState, tutor: TutorState, params: ModelParams, graph: PrereqGraph | undefined, event: LearnerEvent): void {
  const priors = priorLogits(state, tutor, params, event);
  applyEvent(state, params, graph, event);
  updateTutorState(tutor, event, state, params, priors);
}

/**
 * The belief (predicted-mastery logit) before a graded event, for objectives the tutor has not seen
 * graded yet: the reference the stuck rule's "new high" starts from. Call before applying the event.
 */
export function priorLogits(state: LearnerState, tutor: TutorState, params: ModelParams, event: LearnerEvent): (number | undefined)[] {
  if (event.kind !== "graded") return [];
  return uniq(event.objectives).map((k) =>
    (tutor.obj[k]?.n ?? 0) === 0 ? lowerLogit(belief(state, params, k, event.timeMs ?? 0), POLICY.readyConfidence) : undefined,
  );
}

/** Updates the tutor state after `event` was applied to the learner state (`stateAfter`). Mutates and returns `tutor`. */
export function updateTutorState(
  tutor: TutorState,
  event: LearnerEvent,
  stateAfter: LearnerState,
  params: ModelParams,
  priors: readonly (number | undefined)[] = [],
): TutorState {
  tutor.seq += 1;
  const objs = uniq(event.objectives);
  const share = 1 / (objs.length || 1);
  const graded = event.kind === "graded";
  const y = graded && (event.correct === true || event.correct === 1) ? 1 : 0;
  const learn = learnRate(tutor);
  objs.forEach((k, i) => {
    tutor.obj[k] ??= newTrack();
    const t = tutor.obj[k];
    t.f += share;
    t.last = tutor.seq;
    if (!graded) {
      t.u += 1;
      t.uAt = t.n;
      instruct(t, learn);
      return;
    }
    observe(t, y === 1, learn);
    const b = belief(stateAfter, params, k, event.timeMs ?? 0);
    const lo = lowerLogit(b, POLICY.readyConfidence);
    if (t.n === 0) {
      t.hi = priors[i] ?? lo;
      t.hiAt = 0;
    }
    t.n += 1;
    t.w += y;
    t.o = ((t.o << 1) | y) & OUTCOME_BITS;
    if (lo > t.hi + POLICY.trendMargin) {
      t.hi = lo;
      t.hiAt = t.n;
    } else {
      // Re-check points (stuck episodes): every stuckOpportunities answers without a new high.
      if ((t.n - t.hiAt) % POLICY.stuckOpportunities === 0) t.rvSeq = tutor.seq;
    }
    if (t.n - t.hiAt >= stuckThreshold(tutor)) t.sk = 1;
    if ((t.o & 7) === 7) {
      t.sk = 0;
      if (t.ls === 0 && t.w < t.n) {
        // Learned after wrong answers (three correct in a row now): a sample of this learner's pace.
        t.ls = 1;
        tutor.learned += 1;
        tutor.learnedFails += t.n - t.w;
      }
    }
  });
  tutor.recent = [event.itemKey, ...tutor.recent.filter((r) => r !== event.itemKey)].slice(0, RECENT);
  tutor.lastObjectives = objs;
  tutor.lastOutcome = graded ? y : -1;
  return tutor;
}

/**
 * Expected wrong answers before this learner learns an unknown objective: the prior
 * (learnOpportunitiesPrior, weight learnOpportunitiesPriorWeight objectives) blended with the
 * learner's own record (objectives that went from wrong answers to three correct in a row).
 */
export function learnerPace(tutor: TutorState): number {
  const w = POLICY.learnOpportunitiesPriorWeight;
  return (POLICY.learnOpportunitiesPrior * w + tutor.learnedFails) / (w + tutor.learned);
}

/** Probability that one opportunity teaches this learner an unknown objective whose prerequisites they know: 1 / (1 + pace). */
export function learnRate(tutor: TutorState): number {
  return 1 / (1 + learnerPace(tutor));
}

/**
 * Answers without a new high of the belief after which an objective is stuck: stuckOpportunities
 * (Beck & Gong's 10) for a learner of typical pace, more for a learner who needs more attempts to
 * learn (stuckPaceFactor × pace).
 */
function stuckThreshold(tutor: TutorState): number {
  return Math.max(POLICY.stuckOpportunities, Math.ceil(POLICY.stuckPaceFactor * learnerPace(tutor)));
}

function uniq(objs: readonly string[]): string[] {
  return objs.length <= 1 ? [...objs] : [...new Set(objs)];
}
