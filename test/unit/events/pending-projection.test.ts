import { describe, expect, it } from "vitest";
import { PendingProjection } from "../../../src/objects/registration/pending-projection";

/** The object's key-value storage, as far as PendingProjection uses it (a Map, values structured-cloned). */
function kvStore(): SyncKvStorage {
  const map = new Map<string, unknown>();
  return {
    get: (key: string) => structuredClone(map.get(key)),
    put: (key: string, value: unknown) => void map.set(key, structuredClone(value)),
    delete: (key: string) => map.delete(key),
  } as unknown as SyncKvStorage;
}

describe("pending projection (sent straight to the queue, never lost)", () => {
  it("publishes the marked objectives once, after their send succeeded", () => {
    const pending = new PendingProjection(kvStore());
    pending.mark(["a", "b"]);
    expect(pending.take()).toEqual(["a", "b"]);
    pending.sent();
    expect(pending.pending()).toBe(false);
    expect(pending.take()).toBeUndefined();
  });

  it("publishes again, with the objectives marked since, a publication whose send failed", () => {
    const pending = new PendingProjection(kvStore());
    pending.mark(["a"]);
    expect(pending.take()).toEqual(["a"]);
    pending.mark(["b"]); // an event while the send was in flight
    expect(pending.pending()).toBe(true);
    expect(pending.take()).toEqual(["a", "b"]);
    pending.sent();
    expect(pending.take()).toBeUndefined();
  });

  it("a new instance (the object was replaced during a send) publishes the last publication again", () => {
    const kv = kvStore();
    const before = new PendingProjection(kv);
    before.mark("all");
    expect(before.take()).toBe("all");
    before.sent();
    before.mark(["c"]);
    expect(before.take()).toEqual(["c"]);
    // replaced before it learnt whether ["c"] reached the queue
    const after = new PendingProjection(kv);
    expect(after.pending()).toBe(true);
    after.mark(["d"]);
    expect(after.take()).toEqual(["c", "d"]);
  });

  it("a full snapshot absorbs any objectives", () => {
    const pending = new PendingProjection(kvStore());
    pending.mark(["a"]);
    expect(pending.take()).toEqual(["a"]);
    pending.mark("all");
    expect(pending.take()).toBe("all");
  });
});
