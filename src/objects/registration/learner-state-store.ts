import type { GraphIndex } from "../../graphs/runtime-graph";
import { applyEvent, type ItemEntry, initialLearnerState, type LearnerState, type ModelParams } from "../../model";
import { SERVICE_PARAMS, SERVICE_PARAMS_ID } from "../../model/service-params";
import { type EventLog, loggedLearnerEvent } from "./event-log";
import { modelGraphFor } from "./model-graph";

/**
 * The registration's learner state: kept in the object's key-value storage (updated incrementally,
 * O(1) per event), cached in memory, and tagged with the id of the service parameters that computed
 * it. A state computed under other parameters (a recalibration was deployed) is stale and is rebuilt
 * from the event log.
 */
export class LearnerStateStore {
  readonly #kv: SyncKvStorage;
  #cached: LearnerState | undefined;

  constructor(kv: SyncKvStorage) {
    this.#kv = kv;
  }

  current(): LearnerState {
    this.#cached ??= this.#kv.get<LearnerState>("learner_state") ?? initialLearnerState(SERVICE_PARAMS);
    return this.#cached;
  }

  /** True when a stored state was computed under other service parameters. */
  stale(): boolean {
    return this.#kv.get("learner_state") !== undefined && this.#kv.get<string>("model_params_id") !== SERVICE_PARAMS_ID;
  }

  /** Writes the state (inside the caller's transaction); call `adopt` after the commit. */
  write(state: LearnerState): void {
    this.#kv.put("learner_state", state);
    this.#kv.put("model_params_id", SERVICE_PARAMS_ID);
  }

  /** Makes a committed state the cached one (a failed transaction leaves the cache as it was). */
  adopt(state: LearnerState): void {
    this.#cached = state;
  }
}

/** The service parameters with the one item entry an event needs (the model reads no other item). */
export function paramsWith(itemKey: string, item: ItemEntry | undefined): ModelParams {
  return item ? { ...SERVICE_PARAMS, items: { [itemKey]: item } } : SERVICE_PARAMS;
}

/**
 * The learner state rebuilt from the event log alone: the same model steps with the item parameters
 * stored in each event and the graph version it was accepted under (equals the incremental state).
 */
export async function replayLearnerState(log: EventLog, graphAt: (version: number) => Promise<GraphIndex>): Promise<LearnerState> {
  const state = initialLearnerState(SERVICE_PARAMS);
  for (const row of log.learnerEvents()) {
    const graph = await graphAt(row.graph_version ?? 1);
    const logged = loggedLearnerEvent(graph, row);
    if (logged) applyEvent(state, paramsWith(logged.event.itemKey, logged.item), modelGraphFor(graph), logged.event);
  }
  return state;
}
