/**
 * A value every object and request of an isolate shares (a graph's item parameters, its population
 * rates), re-read when older than `ttlMs`, by one caller at a time: while one caller refreshes an
 * expired value, the others are answered the previous value at once instead of all reading and
 * computing it again (a class's hundred objects hitting the expiry together would otherwise make a
 * hundred identical D1 reads and estimations). What is shared is resolved values and a timestamp,
 * never a promise (src/lib/in-flight.ts): the refresh runs in its caller's context, and if that
 * caller never finishes, another one takes over after `refreshTimeoutMs`.
 *
 * A value is therefore served at most `ttlMs + refreshTimeoutMs` after it was read. With no value
 * yet (a cold isolate), every caller reads for itself. `ttlMs` may depend on the value read (a
 * graph's rates are re-read sooner while they move fast: src/reads/population-rates.ts).
 */
export class SharedValue<T> {
  readonly #entries = new Map<string, { at: number; value: T; refreshingSince?: number }>();
  readonly #ttlMs: (value: T) => number;

  constructor(
    ttlMs: number | ((value: T) => number),
    readonly refreshTimeoutMs: number,
  ) {
    this.#ttlMs = typeof ttlMs === "number" ? () => ttlMs : ttlMs;
  }

  async get(key: string, nowMs: number, load: (previous: T | undefined) => Promise<T>): Promise<T> {
    const hit = this.#entries.get(key);
    if (hit && nowMs - hit.at < this.#ttlMs(hit.value)) return hit.value;
    if (hit?.refreshingSince !== undefined && nowMs - hit.refreshingSince < this.refreshTimeoutMs) return hit.value;
    if (hit) hit.refreshingSince = nowMs;
    let value: T;
    try {
      value = await load(hit?.value);
    } catch (error) {
      const current = this.#entries.get(key);
      if (current?.refreshingSince === nowMs) current.refreshingSince = undefined;
      throw error;
    }
    // A caller that read later may have stored its copy first: keep the later one.
    const stored = this.#entries.get(key);
    if (stored && stored.at >= nowMs) return stored.value;
    this.#entries.set(key, { at: nowMs, value });
    return value;
  }

  clear(): void {
    this.#entries.clear();
  }
}
