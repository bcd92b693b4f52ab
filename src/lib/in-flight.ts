/**
 * Merges concurrent loads of the same key made by one owner: a Durable Object instance, whose
 * requests all run in its own context. Never keep one at module level: an isolate is shared by
 * every object of a class and by the Worker's requests, and a promise started in another object's
 * or request's context must not be awaited (if that context goes away first, the waiter continues in
 * the wrong context or not at all). What is shared across the isolate is resolved values only.
 */
export class InFlight<T> {
  readonly #pending = new Map<string, Promise<T>>();

  run(key: string, load: () => Promise<T>): Promise<T> {
    const pending = this.#pending.get(key);
    if (pending) return pending;
    const started = load().finally(() => this.#pending.delete(key));
    this.#pending.set(key, started);
    return started;
  }
}
