/** Rebuilds a learner state from its event log (must equal the incrementally maintained state). */
import type { PrereqGraph } from "./graph-propagation";
import { initialLearnerState, type LearnerState } from "./learner-state";
import type { ModelParams } from "./params";
import { applyEvent, type LearnerEvent } from "./update";

export function replay(events: Iterable<LearnerEvent>, params: ModelParams, graph?: PrereqGraph): LearnerState {
  const state = initialLearnerState(params);
  for (const ev of events) applyEvent(state, params, graph, ev);
  return state;
}
