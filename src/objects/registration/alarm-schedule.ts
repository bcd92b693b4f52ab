/**
 * The object's one alarm (the outbox, the population contribution), with the time it is set for
 * kept in memory: the object is the only one that sets it, so after the first read an event arms
 * it without a storage read. A new instance reads it once.
 */
export class AlarmSchedule {
  readonly #storage: DurableObjectStorage;
  /** when the alarm is set for (null: not set; undefined: not known yet) */
  #at: number | null | undefined;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
  }

  /** The alarm handler started: the runtime has cleared the alarm. */
  fired(): void {
    this.#at = null;
  }

  async set(at: number): Promise<void> {
    await this.#storage.setAlarm(at);
    this.#at = at;
  }

  /** Makes sure the alarm fires no later than `at` (an earlier one is kept). */
  async noLaterThan(at: number): Promise<void> {
    this.#at ??= await this.#storage.getAlarm();
    if (this.#at === null || this.#at > at) await this.set(at);
  }
}
