import type { ItemCounters } from "./learner-state";

/**
 * The remembered items of a learner state from the least to the most recently attempted, built once
 * per items record (a replayed or stored copy gets its own) and kept in step by `touchItem`: finding
 * the item to forget is then the first key instead of a scan of all of them (a batch of answers on
 * new items paid that scan for nearly every answer: docs/performance.md, ninth pass). The order is
 * the one the scan chose by: the lowest sequence number, the first of equals in key order.
 */
const recencies = new WeakMap<Record<string, ItemCounters>, Map<string, true>>();

export function recencyOf(items: Record<string, ItemCounters>): Map<string, true> {
  let order = recencies.get(items);
  if (!order) {
    const keys = Object.keys(items);
    // Array.prototype.sort is stable: equal sequence numbers keep their key order.
    keys.sort((a, b) => (items[a] as ItemCounters)[2] - (items[b] as ItemCounters)[2]);
    order = new Map(keys.map((k) => [k, true]));
    recencies.set(items, order);
  }
  return order;
}
