import {
  type ActivityEvent,
  type ActivitySummary,
  addActivity,
  addAnswered,
  emptyActivitySummary,
  type ProjectionMessage,
  type PublishableState,
  projectionMessages,
  summarizeActivity,
} from "../../analytics";

/** The registration's constants a projection message names (written once, at its first events). */
export interface PublisherIdentity {
  registrationId: string;
  accountId: string;
  graphUuid: string;
  registrationCreatedAt: number;
}

/**
 * What the analytics need of a registration beyond the learner model, kept incrementally in the
 * object's key-value storage (bounded): the coverage sketch of answered assessment modules per
 * objective, the activity summary (active time per quarter hour, src/analytics/active-time.ts), and
 * the sequence number of the projection messages it publishes (src/analytics/projection.ts).
 */
export class AnalyticsStore {
  readonly #kv: SyncKvStorage;

  constructor(kv: SyncKvStorage) {
    this.#kv = kv;
  }

  coverage(): Record<string, number[]> {
    return this.#kv.get<Record<string, number[]>>("coverage") ?? {};
  }

  activity(): ActivitySummary {
    return this.#kv.get<ActivitySummary>("activity") ?? emptyActivitySummary();
  }

  /**
   * Records a batch's graded answers (coverage) and interactions (activity), inside the caller's
   * transaction. An interaction older than the latest one changes its successor's idle gap, so the
   * activity summary is then rebuilt from the whole log (`allInteractions`, rare).
   */
  record(answered: { module: string; objectives: readonly string[] }[], interactions: ActivityEvent[], allInteractions: () => ActivityEvent[]): void {
    if (answered.length) {
      const coverage = this.coverage();
      for (const a of answered) for (const k of a.objectives) coverage[k] = addAnswered(coverage[k], a.module);
      this.#kv.put("coverage", coverage);
    }
    if (interactions.length) {
      let activity = this.activity();
      for (const ev of interactions) {
        if (!addActivity(activity, ev)) {
          activity = summarizeActivity(allInteractions());
          break;
        }
      }
      this.#kv.put("activity", activity);
    }
  }

  /**
   * The projection messages publishing `objectives` of the learner state (all when undefined: a full
   * snapshot), with their coverage sketches, under the next sequence number (inside the caller's transaction).
   */
  projection(identity: PublisherIdentity, state: PublishableState, objectives?: Iterable<string>): ProjectionMessage[] {
    const seq = (this.#kv.get<number>("projection_seq") ?? 0) + 1;
    this.#kv.put("projection_seq", seq);
    const coverage = this.coverage();
    const keys = objectives ? [...objectives] : Object.keys(state.objectives);
    const answered: Record<string, number[]> = {};
    for (const k of keys) if (coverage[k]) answered[k] = coverage[k];
    const firstActivity = this.activity().firstEndMs;
    return projectionMessages(
      state,
      {
        accountId: identity.accountId,
        graphId: identity.graphUuid,
        registrationId: identity.registrationId,
        registrationCreatedAt: identity.registrationCreatedAt,
        seq,
        firstActivity,
      },
      answered,
      objectives ? { objectives: keys } : {},
    );
  }
}

/** Objectives whose belief or counts differ between two learner states (the ones a delta must publish). */
export function changedObjectives(before: PublishableState, after: PublishableState): string[] {
  const out: string[] = [];
  for (const [k, o] of Object.entries(after.objectives)) {
    const b = before.objectives[k];
    if (!b || b.mu !== o.mu || b.v !== o.v || b.n !== o.n || b.t !== o.t) out.push(k);
  }
  return out;
}
