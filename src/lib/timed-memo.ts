/**
 * Values computed at a time and answered again while at most `maxAgeMs` old (never one computed
 * after the asking time), kept in the isolate: resolved values only (./in-flight.ts). At most
 * `maxEntries`; when it is full, the oldest half (by when they were written) goes.
 */
export class TimedMemo<V> {
  readonly #entries = new Map<string, { at: number; value: V }>();

  constructor(
    readonly maxAgeMs: number,
    readonly maxEntries: number,
  ) {}

  get(key: string, nowMs: number): V | undefined {
    const hit = this.#entries.get(key);
    return hit && nowMs >= hit.at && nowMs - hit.at <= this.maxAgeMs ? hit.value : undefined;
  }

  set(key: string, nowMs: number, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, { at: nowMs, value });
    if (this.#entries.size <= this.maxEntries) return;
    let drop = this.#entries.size / 2;
    for (const k of this.#entries.keys()) {
      if (drop-- <= 0) break;
      this.#entries.delete(k);
    }
  }
}
