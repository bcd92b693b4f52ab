import type { TutorState } from "../../policy";
import { type Beliefs, beliefsOf } from "./analytics-store";
import type { ModelState } from "./model-state-store";

/**
 * What an event's update is compared with (`changedObjectives`, `changedEvidence`), taken before the
 * state is updated in place: the learner's beliefs and the tutor state with each objective's entry
 * copied. Those comparisons read only these numbers, so this stands for the state before the update
 * without a deep copy of it (a `structuredClone` per request cost 100-1,100 µs; docs/performance.md,
 * eighth pass). Not a snapshot: a tutor entry's arrays (items, steps) and the tutor's lists are the
 * live state's.
 */
export function comparedBefore(state: ModelState): { beliefs: Beliefs; tutor: TutorState } {
  const obj: TutorState["obj"] = {};
  for (const k in state.tutor.obj) obj[k] = { ...(state.tutor.obj[k] as TutorState["obj"][string]) };
  return { beliefs: beliefsOf(state.learner), tutor: { ...state.tutor, obj } };
}
