/**
 * The tutor state: per objective the evidence of the registration's events (src/tracing/evidence.ts)
 * and the last items. Updated by a pure function per event, so it is a deterministic function of the
 * event sequence (a replay of the log rebuilds it exactly), and it holds no rate: the population's
 * current rates are applied when a decision is made.
 */
import { applyEvent, type LearnerEvent, type LearnerState, type ModelParams, type PrereqGraph } from "../model";
import { addStep, newEvidence, RIGHT, TAUGHT, WRONG } from "../tracing/evidence";
import type { TutorState } from "./types";

const RECENT = 5;

export function initialTutorState(): TutorState {
  return { version: 3, seq: 0, recent: [], lastObjectives: [], obj: {} };
}

/**
 * Applies one event to the learner model's state (exactly `applyEvent`: the predicted score and the
 * proficiency analytics read it) and to the tutor state. This is what the RegistrationObject runs per
 * event; replaying the log through it rebuilds both states.
 */
export function applyTutoredEvent(state: LearnerState, tutor: TutorState, params: ModelParams, graph: PrereqGraph | undefined, event: LearnerEvent): void {
  applyEvent(state, params, graph, event);
  updateTutorState(tutor, event);
}

/** Adds the event to the evidence of each of its objectives. Mutates and returns `tutor`. */
export function updateTutorState(tutor: TutorState, event: LearnerEvent): TutorState {
  tutor.seq += 1;
  const objectives = event.objectives.length <= 1 ? [...event.objectives] : [...new Set(event.objectives)];
  const share = 1 / (objectives.length || 1);
  const outcome = event.kind !== "graded" ? TAUGHT : event.correct === true || event.correct === 1 ? RIGHT : WRONG;
  for (const k of objectives) {
    const e = tutor.obj[k] ?? newEvidence();
    tutor.obj[k] = e;
    addStep(e, event.itemKey, outcome, tutor.seq, share);
  }
  tutor.recent = [event.itemKey, ...tutor.recent.filter((r) => r !== event.itemKey)].slice(0, RECENT);
  tutor.lastObjectives = objectives;
  return tutor;
}
