/**
 * How long after an event the registration publishes its projection (the beliefs predicted score and
 * the class views read from D1). The events of that interval are published once, from the state
 * they led to, instead of once each: a learner answering every few seconds sends one message per
 * interval, not one per answer. docs/api-conventions.md "Freshness": class-level reads and the predicted score
 * may lag the events by at most 10 s, and derived state may be coalesced per registration within
 * that bound; this delay plus the projections queue's batch timeout (wrangler.toml, 1 s) stays inside it.
 * Each publication is an alarm with its storage commits and queue send, the largest deferred cost of
 * an answer (docs/performance.md, third pass): the longer the delay, the fewer per answer.
 */
export const PROJECTION_DELAY_MS = 8_000;

const KEY = "projection_pending";
/** What the latest publication carried, kept until a later one replaces it (see `take`). */
const SENDING = "projection_sending";

type Objectives = string[] | "all";

/**
 * Which objectives' beliefs changed since the registration last published its projection ("all":
 * a full snapshot is due: the first events, a rebuild), kept in the object's key-value storage in
 * the same transaction as the events, so a publication is never lost to an eviction.
 *
 * A publication is sent straight to the projections queue, not through the outbox (one commit and
 * the outbox row's write, read and delete fewer per publication; docs/performance.md, third pass):
 * `take` records what it publishes before the send, and only this instance knows whether the send
 * succeeded (`sent`). A publication not known to have reached the queue (the send failed, or the
 * instance was replaced) is published again with the next one. The merge is idempotent and each
 * publication has its own sequence number (src/analytics/projection.ts), so a repeat is harmless.
 */
export class PendingProjection {
  readonly #kv: SyncKvStorage;
  /** the publication recorded under SENDING reached the queue (known to this instance only) */
  #sent = false;

  constructor(kv: SyncKvStorage) {
    this.#kv = kv;
  }

  /** Notes changed objectives, or that everything is to be published (inside the caller's transaction). */
  mark(objectives: Iterable<string> | "all"): void {
    const pending = this.#kv.get<Objectives>(KEY);
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
    return this.#kv.get(KEY) !== undefined || (!this.#sent && this.#kv.get(SENDING) !== undefined);
  }

  /**
   * What to publish now (undefined: nothing; "all": every objective): the marked objectives, and
   * the previous publication's when its send is not known to have succeeded. The marks are cleared
   * and the publication recorded as being sent (inside the caller's transaction).
   */
  take(): Objectives | undefined {
    const marked = this.#kv.get<Objectives>(KEY);
    const unsent = this.#sent ? undefined : this.#kv.get<Objectives>(SENDING);
    if (marked === undefined && unsent === undefined) return undefined;
    const objectives = marked === "all" || unsent === "all" ? "all" : [...new Set([...(unsent ?? []), ...(marked ?? [])])];
    if (marked !== undefined) this.#kv.delete(KEY);
    this.#kv.put(SENDING, objectives);
    this.#sent = false;
    return objectives;
  }

  /** The publication `take` returned reached the queue (or had nothing to send). */
  sent(): void {
    this.#sent = true;
  }
}
