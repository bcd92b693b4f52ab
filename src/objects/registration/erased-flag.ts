import { type ErasedCounts, eraseStorage, isErased } from "./erasure";

/**
 * Whether the object is erased, read from its storage once per instance. Only the object erases
 * itself (through `erase` here), so an answer "not erased" holds until then, and every later call
 * is answered from memory: the first storage access of a call is its costly one (docs/performance.md,
 * third pass), and a class page's memoized status needs no other. While an erasure runs, and after
 * one failed, the tombstone is read from storage as before.
 */
export class ErasedFlag {
  readonly #storage: DurableObjectStorage;
  #erased: boolean | undefined;
  #erasing = 0;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
  }

  get(): boolean {
    if (this.#erasing > 0) return isErased(this.#storage);
    this.#erased ??= isErased(this.#storage);
    return this.#erased;
  }

  /** Erases the object's storage (./erasure.ts); from then on every call of this instance is refused. */
  async erase(): Promise<ErasedCounts> {
    this.#erasing++;
    this.#erased = undefined;
    try {
      const counts = await eraseStorage(this.#storage);
      this.#erased = true;
      return counts;
    } finally {
      this.#erasing--;
    }
  }
}
