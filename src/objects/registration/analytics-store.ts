import {
  type ActivityEvent,
  type ActivitySummary,
  addActivity,
  addAnswered,
  bucketDay,
  emptyActivitySummary,
  localDay,
  oldestKeptBucket,
  type ProjectionMessage,
  type PublishableState,
  projectionMessages,
  summarizeActivity,
  type Totals,
} from "../../analytics";

/** The registration's constants a projection message names (written once, at its first events). */
export interface PublisherIdentity {
  registrationId: string;
  accountId: string;
  graphUuid: string;
  registrationCreatedAt: number;
}

/** The registration's constants, as its first events recorded them in the object's key-value storage. */
export function publisherIdentity(kv: SyncKvStorage): PublisherIdentity {
  return {
    registrationId: kv.get<string>("registration_id") ?? "",
    accountId: kv.get<string>("account_id") ?? "",
    graphUuid: kv.get<string>("graph_uuid") ?? "",
    registrationCreatedAt: kv.get<number>("registration_created_at") ?? 0,
  };
}

/** What a projection message carries besides the beliefs: coverage sketches and the first activity (ms; 0 = none). */
export interface Published {
  coverage: Record<string, number[]>;
  firstActivity: number;
}

/** The activity summary without its buckets (stored under ACTIVITY_HEAD). */
type ActivityHead = Omit<ActivitySummary, "buckets">;
const ACTIVITY_HEAD = "activity_head";
/** One key per UTC day of quarter-hour buckets: `activity_day:<day>`. */
const ACTIVITY_DAY = "activity_day:";
/** The whole summary in one value, as objects stored it before the days were split. */
const LEGACY_ACTIVITY = "activity";

/**
 * What the analytics need of a registration beyond the learner model, kept incrementally in the
 * object's key-value storage (bounded): the coverage sketch of answered assessment modules per
 * objective, the activity summary (active time per quarter hour, src/analytics/active-time.ts), and
 * the sequence number of the projection messages it publishes (src/analytics/projection.ts).
 *
 * The activity summary is stored as a head (totals, first and last event) plus one value per day of
 * buckets, so an event reads and writes its own day only: up to 120 days of quarter hours in one
 * value made every event of a long-active learner pay for (de)serializing all of them.
 */
export class AnalyticsStore {
  readonly #kv: SyncKvStorage;

  constructor(kv: SyncKvStorage) {
    this.#kv = kv;
  }

  #coverage(): Record<string, number[]> {
    return this.#kv.get<Record<string, number[]>>("coverage") ?? {};
  }

  /** What a projection publishes besides the beliefs, as stored (for a full republication). */
  published(): Published {
    return { coverage: this.#coverage(), firstActivity: this.#activityHead().firstEndMs };
  }

  activity(): ActivitySummary {
    const buckets: Record<string, Totals> = {};
    const head = this.#activityHead();
    for (const [, day] of this.#kv.list<Record<string, Totals>>({ prefix: ACTIVITY_DAY })) Object.assign(buckets, day);
    return { ...head, buckets };
  }

  #activityHead(): ActivityHead {
    const legacy = this.#kv.get<ActivitySummary>(LEGACY_ACTIVITY);
    if (legacy) {
      this.#kv.delete(LEGACY_ACTIVITY);
      this.#writeActivity(legacy);
    }
    const { buckets: _, ...empty } = emptyActivitySummary();
    return this.#kv.get<ActivityHead>(ACTIVITY_HEAD) ?? empty;
  }

  /** Replaces the stored summary with `summary` (a rebuild, or the legacy value split into days). */
  #writeActivity(summary: ActivitySummary): void {
    for (const [key] of this.#kv.list({ prefix: ACTIVITY_DAY })) this.#kv.delete(key);
    const days = new Map<number, Record<string, Totals>>();
    for (const [k, t] of Object.entries(summary.buckets)) {
      const day = bucketDay(k);
      const buckets = days.get(day) ?? {};
      buckets[k] = t;
      days.set(day, buckets);
    }
    for (const [day, buckets] of days) this.#kv.put(`${ACTIVITY_DAY}${day}`, buckets);
    const { buckets: _, ...head } = summary;
    this.#kv.put(ACTIVITY_HEAD, head);
  }

  /** Adds interactions in time order, reading and writing only their days; the new head, or undefined when one is older than the latest. */
  #addActivity(interactions: ActivityEvent[]): ActivityHead | undefined {
    const head = this.#activityHead();
    const partial: ActivitySummary = { ...head, total: [...head.total], buckets: {} };
    const days = new Set<number>();
    for (const ev of interactions) {
      const day = localDay(ev.endMs);
      if (!days.has(day)) {
        days.add(day);
        Object.assign(partial.buckets, this.#kv.get<Record<string, Totals>>(`${ACTIVITY_DAY}${day}`));
      }
      if (!addActivity(partial, ev)) return undefined;
    }
    for (const day of days) {
      const buckets = Object.fromEntries(Object.entries(partial.buckets).filter(([k]) => bucketDay(k) === day));
      if (Object.keys(buckets).length) this.#kv.put(`${ACTIVITY_DAY}${day}`, buckets);
      else this.#kv.delete(`${ACTIVITY_DAY}${day}`);
    }
    if (localDay(partial.lastEndMs) > localDay(head.lastEndMs)) this.#pruneActivity(oldestKeptBucket(partial.lastEndMs));
    const { buckets: _, ...next } = partial;
    this.#kv.put(ACTIVITY_HEAD, next);
    return next;
  }

  /** Drops the buckets older than `oldest` (once per day of activity, as the summary prunes itself). */
  #pruneActivity(oldest: number): void {
    for (const [key, buckets] of this.#kv.list<Record<string, Totals>>({ prefix: ACTIVITY_DAY })) {
      const kept = Object.entries(buckets).filter(([k]) => Number(k) >= oldest);
      if (kept.length === 0) this.#kv.delete(key);
      else if (kept.length < Object.keys(buckets).length) this.#kv.put(key, Object.fromEntries(kept));
    }
  }

  /**
   * Records a batch's graded answers (coverage) and interactions (activity), inside the caller's
   * transaction. An interaction older than the latest one changes its successor's idle gap, so the
   * activity summary is then rebuilt from the whole log (`allInteractions`, rare). Returns what the
   * batch's projection publishes with the beliefs (so it is not read back).
   */
  record(answered: { module: string; objectives: readonly string[] }[], interactions: ActivityEvent[], allInteractions: () => ActivityEvent[]): Published {
    const coverage = this.#coverage();
    if (answered.length) {
      for (const a of answered) for (const k of a.objectives) coverage[k] = addAnswered(coverage[k], a.module);
      this.#kv.put("coverage", coverage);
    }
    let head = interactions.length ? this.#addActivity(interactions) : this.#activityHead();
    if (!head) {
      const rebuilt = summarizeActivity(allInteractions());
      this.#writeActivity(rebuilt);
      head = rebuilt;
    }
    return { coverage, firstActivity: head.firstEndMs };
  }

  /**
   * The projection messages publishing `objectives` of the learner state (all when undefined: a full
   * snapshot), with their coverage sketches, under the next sequence number (inside the caller's transaction).
   */
  projection(identity: PublisherIdentity, state: PublishableState, { coverage, firstActivity }: Published, objectives?: Iterable<string>): ProjectionMessage[] {
    const seq = (this.#kv.get<number>("projection_seq") ?? 0) + 1;
    this.#kv.put("projection_seq", seq);
    const keys = objectives ? [...objectives] : Object.keys(state.objectives);
    const answered: Record<string, number[]> = {};
    for (const k of keys) if (coverage[k]) answered[k] = coverage[k];
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

/** Each objective's belief and counts as a projection publishes them. */
export type Beliefs = Map<string, PublishableState["objectives"][string]>;

/** The learner state's beliefs, copied (to compare with after an update in place; a Map is several times faster to build than a record here). */
export function beliefsOf(state: PublishableState): Beliefs {
  const beliefs: Beliefs = new Map();
  for (const k in state.objectives) {
    const o = state.objectives[k] as PublishableState["objectives"][string];
    beliefs.set(k, { mu: o.mu, v: o.v, n: o.n, t: o.t });
  }
  return beliefs;
}

/** Objectives whose belief or counts differ from `before` in a learner state (the ones a delta must publish). */
export function changedObjectives(before: Beliefs, after: PublishableState): string[] {
  const out: string[] = [];
  for (const [k, o] of Object.entries(after.objectives)) {
    const b = before.get(k);
    if (!b || b.mu !== o.mu || b.v !== o.v || b.n !== o.n || b.t !== o.t) out.push(k);
  }
  return out;
}
