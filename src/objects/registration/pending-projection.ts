/**
 * How long after an event the registration publishes its projection (the beliefs predicted score and
 * the class views read from D1). The events of that interval are published once, from the state
 * they led to, instead of once each: a learner answering every few seconds sends one message per
 * interval, not one per answer. docs/api-conventions.md "Freshness": class-level reads and the predicted score
 * may lag the events by at most 10 s, and derived state may be coalesced per registration within
 * that bound; this delay plus the projections queue's batch timeout (wrangler.toml, 5 s) stays inside it.
 */
export const PROJECTION_DELAY_MS = 4_000;

const KEY = "projection_pending";

/**
 * Which objectives' beliefs changed since the registration last published its projection ("all":
 * a full snapshot is due: the first events, a rebuild), kept in the object's key-value storage in
 * the same transaction as the events, so a publication is never lost to an eviction.
 */
export class PendingProjection {
  readonly #kv: SyncKvStorage;

  constructor(kv: SyncKvStorage) {
    this.#kv = kv;
  }

  /** Notes changed objectives, or that everything is to be published (inside the caller's transaction). */
  mark(objectives: Iterable<string> | "all"): void {
    const pending = this.#kv.get<string[] | "all">(KEY);
    if (pending === "all") return;
    if (objectives === "all") {
      this.#kv.put(KEY, "all");
      return;
    }
    const set = new Set(pending ?? []);
    const before = set.size;
    for (const k of objectives) set.add(k);
    if (pending === undefined || set.size !== before) this.#kv.put(KEY, [...set]);
  }

  pending(): boolean {
    return this.#kv.get(KEY) !== undefined;
  }

  /** What to publish now (undefined: nothing; "all": every objective), cleared (inside the caller's transaction, with the outbox write). */
  take(): string[] | "all" | undefined {
    const pending = this.#kv.get<string[] | "all">(KEY);
    if (pending !== undefined) this.#kv.delete(KEY);
    return pending;
  }
}
