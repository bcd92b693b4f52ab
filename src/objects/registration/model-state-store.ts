import type { GraphIndex } from "../../graphs/runtime-graph";
import { type ItemEntry, initialLearnerState, type LearnerState, type ModelParams } from "../../model";
import { fnv1a } from "../../model/math";
import { SERVICE_PARAMS, SERVICE_PARAMS_ID } from "../../model/service-params";
import { applyTutoredEvent, initialTutorState, POLICY, type TutorState } from "../../policy";
import { modelGraphFor } from "../../policy/model-graph";
import { type EventLog, type LoggedEvent, loggedLearnerEvent } from "./event-log";

/** The learner model's and the policy's state of one registration: both are a function of the event log. */
export interface ModelState {
  learner: LearnerState;
  tutor: TutorState;
}

/**
 * Which parameters computed a stored state: the service's model parameters, the policy's constants
 * and the tutor state's format version. A state computed under others (a recalibration or a policy
 * change was deployed) is stale and is rebuilt from the event log.
 */
export const MODEL_STATE_ID = `${SERVICE_PARAMS_ID}:${fnv1a(JSON.stringify(POLICY))}:t${initialTutorState().version}`;

/**
 * The registration's model state in the object's key-value storage (updated incrementally, O(1) per
 * event), cached in memory, tagged with MODEL_STATE_ID.
 */
export class ModelStateStore {
  readonly #kv: SyncKvStorage;
  #cached: ModelState | undefined;
  /**
   * Set once the stored state is known to be computed under MODEL_STATE_ID (checked, or written by
   * this object). The id is compiled into the code, so it cannot change while the object lives: a
   * deployment restarts the object. Saves deserializing the whole stored learner state to answer
   * `stale()` on every call.
   */
  #fresh = false;
  /** model_params_id is stored as MODEL_STATE_ID (read, or written by a committed transaction of this object) */
  #idStored = false;

  constructor(kv: SyncKvStorage) {
    this.#kv = kv;
  }

  current(): ModelState {
    this.#cached ??= {
      learner: this.#kv.get<LearnerState>("learner_state") ?? initialLearnerState(SERVICE_PARAMS),
      tutor: this.#kv.get<TutorState>("tutor_state") ?? initialTutorState(),
    };
    return this.#cached;
  }

  /** True when a stored state was computed under other parameters (or before the tutor state existed). */
  stale(): boolean {
    if (this.#fresh) return false;
    // model_params_id is written with the first state, so a state without it (or under another id) is stale;
    // no stored state at all is not.
    const id = this.#kv.get<string>("model_params_id");
    this.#idStored = id === MODEL_STATE_ID;
    const stale = id !== MODEL_STATE_ID && (id !== undefined || this.#kv.get("learner_state") !== undefined);
    this.#fresh = !stale;
    return stale;
  }

  /** Writes the state (inside the caller's transaction); call `adopt` after the commit. */
  write(state: ModelState): void {
    this.#kv.put("learner_state", state.learner);
    this.#kv.put("tutor_state", state.tutor);
    // the id is a constant of the code: written once, not with every state
    if (!this.#idStored) this.#kv.put("model_params_id", MODEL_STATE_ID);
    this.#idStored = true;
  }

  /** Makes a committed state the cached one (a failed transaction leaves the cache as it was). */
  adopt(state: ModelState): void {
    this.#cached = state;
    this.#fresh = true;
  }

  /**
   * Forgets the cached state after a failed transaction that updated it in place: the next
   * `current()` reads the stored state, which the failure rolled back.
   */
  discard(): void {
    this.#cached = undefined;
    this.#idStored = false;
  }
}

/**
 * The service parameters with the one item entry an event needs (the model reads no other item):
 * built once per entry of the isolate's item parameters (a batch of answers on one item shares it)
 * instead of a copy per event.
 */
export function paramsWith(itemKey: string, item: ItemEntry | undefined): ModelParams {
  if (!item) return SERVICE_PARAMS;
  const built = withItem.get(item);
  if (built?.itemKey === itemKey) return built.params;
  const params = { ...SERVICE_PARAMS, items: { [itemKey]: item } };
  withItem.set(item, { itemKey, params });
  return params;
}

const withItem = new WeakMap<ItemEntry, { itemKey: string; params: ModelParams }>();

/**
 * The model state rebuilt from the event log alone: the same steps with the item parameters stored
 * in each event and the graph version it was accepted under (equals the incremental state). When
 * retention removed the log's oldest events, the replay starts from the state kept for them
 * (`start`, ./retention.ts).
 */
export async function replayModelState(log: EventLog, graphAt: (version: number) => Promise<GraphIndex>, start?: ModelState): Promise<ModelState> {
  return applyLoggedEvents(start, log.learnerEvents(), graphAt);
}

/** `rows` (graded and ungraded log rows, in order) applied to a copy of `start` (the initial state when undefined). */
export async function applyLoggedEvents(
  start: ModelState | undefined,
  rows: Iterable<LoggedEvent>,
  graphAt: (version: number) => Promise<GraphIndex>,
): Promise<ModelState> {
  const state: ModelState = start ? structuredClone(start) : { learner: initialLearnerState(SERVICE_PARAMS), tutor: initialTutorState() };
  for (const row of rows) {
    const graph = await graphAt(row.graph_version ?? 1);
    const logged = loggedLearnerEvent(graph, row);
    if (logged) applyTutoredEvent(state.learner, state.tutor, paramsWith(logged.event.itemKey, logged.item), modelGraphFor(graph), logged.event);
  }
  return state;
}
