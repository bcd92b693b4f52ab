import { env, runInDurableObject } from "cloudflare:test";
import type { ActivitySummary } from "../../src/analytics";
import { openDb } from "../../src/db/client";
import type { LearnerState } from "../../src/model";
import { AnalyticsStore } from "../../src/objects/registration/analytics-store";
import { EventLog } from "../../src/objects/registration/event-log";
import { type ModelState, ModelStateStore, replayModelState } from "../../src/objects/registration/model-state-store";
import { Outbox } from "../../src/objects/registration/outbox";
import type { RegistrationObject } from "../../src/objects/registration/registration-object";
import { loadRuntimeGraph } from "../../src/reads/graph-versions";
import { registrationObject as registrationObjectOf } from "../../src/services/registrations";

/**
 * Reads of a registration's Durable Object storage for tests, through the same modules the object
 * uses (the production class exposes no test-only accessors).
 */
export const registrationObject = (id: string) => registrationObjectOf(env, id);

const inObject = <T>(id: string, read: (storage: DurableObjectStorage, object: RegistrationObject) => T | Promise<T>): Promise<T> =>
  runInDurableObject(registrationObject(id), (object: RegistrationObject, state) => read(state.storage, object));

/** Number of events in the registration's log. */
export const eventCount = (id: string): Promise<number> => inObject(id, (storage) => new EventLog(storage.sql).count());

/** The focused goal id, if any. */
export const focusOf = (id: string): Promise<string | undefined> => inObject(id, (storage) => storage.kv.get<string>("focus_goal_id"));

/** How many projection publications the registration has made (each one outbox message or a few). */
export const projectionPublications = (id: string): Promise<number> => inObject(id, (storage) => storage.kv.get<number>("projection_seq") ?? 0);

/** Model-update messages waiting in the outbox. */
export const outboxSize = (id: string): Promise<number> => inObject(id, (storage) => new Outbox(storage.sql).size());

/** The learner state the object keeps (rebuilt first if it was computed under other parameters). */
export const learnerState = (id: string): Promise<LearnerState> => inObject(id, (_storage, object) => object.learnerState());

/** The learner model's and the policy's state as the object keeps them. */
export const modelState = (id: string): Promise<ModelState> =>
  inObject(id, async (_storage, object) => {
    await object.learnerState(); // rebuilt first if stale
    return new ModelStateStore(_storage.kv).current();
  });

/** The learner state rebuilt from the event log alone (must equal `learnerState`). */
export const replayedState = async (id: string): Promise<LearnerState> => (await replayedModelState(id)).learner;

/** The learner and tutor states rebuilt from the event log alone (must equal `modelState`). */
export const replayedModelState = (id: string): Promise<ModelState> =>
  inObject(id, async (storage) => {
    const graphUuid = storage.kv.get<string>("graph_uuid") ?? "";
    return replayModelState(new EventLog(storage.sql), async (version) => {
      const graph = await loadRuntimeGraph(openDb(env.DB), graphUuid, version);
      if (!graph) throw new Error(`graph ${graphUuid}@${version} is missing`);
      return graph;
    });
  });

/** The activity summary the object keeps (assembled from its stored days). */
export const storedActivity = (id: string): Promise<ActivitySummary> => inObject(id, (storage) => new AnalyticsStore(storage.kv).activity());

/**
 * Rewrites the stored activity summary as objects stored it before it was split per day: one value
 * under `activity` (a deployed object may still hold that layout).
 */
export const storeActivityAsOneValue = (id: string): Promise<void> =>
  inObject(id, (storage) => {
    const summary = new AnalyticsStore(storage.kv).activity();
    for (const [key] of storage.kv.list({ prefix: "activity_" })) storage.kv.delete(key);
    storage.kv.put("activity", summary);
  });
