import { describe, expect, it } from "vitest";
import { SharedValue } from "../../../src/lib/shared-value";

/** A load that resolves when told to, counting its calls. */
function gatedLoad<T>(value: T) {
  let calls = 0;
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => {
    release = r;
  });
  return {
    load: async () => {
      calls++;
      await gate;
      return value;
    },
    release: () => release(),
    calls: () => calls,
  };
}

describe("SharedValue: one refresh at a time, the previous value meanwhile", () => {
  it("serves a fresh value without loading", async () => {
    const cache = new SharedValue<number>(1000, 500);
    expect(await cache.get("g", 0, async () => 1)).toBe(1);
    expect(await cache.get("g", 999, async () => 2)).toBe(1);
  });

  it("a TTL that depends on the value: each value is kept as long as its own TTL says", async () => {
    const cache = new SharedValue<number>((v) => (v < 10 ? 100 : 1000), 500);
    expect(await cache.get("g", 0, async () => 1)).toBe(1);
    expect(await cache.get("g", 99, async () => 50)).toBe(1);
    expect(await cache.get("g", 100, async () => 50)).toBe(50);
    expect(await cache.get("g", 1099, async () => 2)).toBe(50);
    expect(await cache.get("g", 1100, async () => 2)).toBe(2);
  });

  it("after the TTL, one caller reloads while the others get the previous value at once", async () => {
    const cache = new SharedValue<number>(1000, 500);
    await cache.get("g", 0, async () => 1);
    const refresh = gatedLoad(2);
    const first = cache.get("g", 1000, refresh.load);
    const others = await Promise.all([cache.get("g", 1001, refresh.load), cache.get("g", 1200, refresh.load)]);
    expect(others).toEqual([1, 1]);
    expect(refresh.calls()).toBe(1);
    refresh.release();
    expect(await first).toBe(2);
    expect(await cache.get("g", 1300, async () => 3)).toBe(2);
  });

  it("a refresh that never finishes is taken over after the refresh timeout", async () => {
    const cache = new SharedValue<number>(1000, 500);
    await cache.get("g", 0, async () => 1);
    void cache.get("g", 1000, () => new Promise<number>(() => {}));
    expect(await cache.get("g", 1499, async () => 9)).toBe(1);
    expect(await cache.get("g", 1500, async () => 3)).toBe(3);
  });

  it("a failed refresh lets the next caller try again; the previous value is kept", async () => {
    const cache = new SharedValue<number>(1000, 500);
    await cache.get("g", 0, async () => 1);
    await expect(
      cache.get("g", 1000, async () => {
        throw new Error("D1 down");
      }),
    ).rejects.toThrow("D1 down");
    expect(await cache.get("g", 1001, async () => 4)).toBe(4);
  });

  it("gives the loader the previous value (to keep what did not change)", async () => {
    const cache = new SharedValue<{ v: number }>(1000, 500);
    const first = await cache.get("g", 0, async () => ({ v: 1 }));
    expect(await cache.get("g", 1000, async (previous) => previous ?? { v: 2 })).toBe(first);
  });

  it("with no value yet every caller loads (nothing in flight is shared)", async () => {
    const cache = new SharedValue<number>(1000, 500);
    const load = gatedLoad(5);
    const both = Promise.all([cache.get("g", 0, load.load), cache.get("g", 0, load.load)]);
    load.release();
    expect(await both).toEqual([5, 5]);
    expect(load.calls()).toBe(2);
  });
});
