import type { ItemObservation, ModelUpdateMessage } from "../../queues/messages";
import { emptyDelta, type StatisticsDelta } from "../../tracing/statistics";

/** Queues take messages of at most 128 KB; ours stay well below. */
export const MESSAGE_BYTES = 100_000;

/** Queues take batches of at most 256 KB and 100 messages. */
export const SEND_BATCH_BYTES = 200_000;
export const SEND_BATCH_MESSAGES = 100;

const encoder = new TextEncoder();
/** Called per message on the alarm's path: one encoder, not one per call. */
export const utf8Bytes = (text: string) => encoder.encode(text).byteLength;

/** How many messages of these UTF-8 sizes, from the first, one queue batch takes: at most SEND_BATCH_MESSAGES and SEND_BATCH_BYTES, at least one. */
export function batchLength(sizes: readonly number[]): number {
  let bytes = 0;
  let n = 0;
  for (const size of sizes) {
    if (n === SEND_BATCH_MESSAGES || (n > 0 && bytes + size > SEND_BATCH_BYTES)) break;
    bytes += size;
    n++;
  }
  return n;
}

/**
 * The observations as outbox messages of at most MESSAGE_BYTES each (UTF-8). An observation too
 * large on its own (a module aligned to very many objectives) goes without its objective list: the
 * consumer then starts that item from the global difficulty instead of its objectives'.
 */
export function outboxMessages(graphUuid: string, observations: ItemObservation[]): string[] {
  const envelope = utf8Bytes(JSON.stringify({ graphUuid, observations: [] }));
  const messages: string[] = [];
  let batch: ItemObservation[] = [];
  let bytes = envelope;
  const flush = () => {
    if (batch.length) messages.push(JSON.stringify({ graphUuid, observations: batch } satisfies Omit<ModelUpdateMessage, "id">));
    batch = [];
    bytes = envelope;
  };
  for (const observation of observations) {
    let item = observation;
    let size = utf8Bytes(JSON.stringify(item)) + 1;
    if (envelope + size > MESSAGE_BYTES) {
      item = { ...observation, objectives: [] };
      size = utf8Bytes(JSON.stringify(item)) + 1;
    }
    if (bytes + size > MESSAGE_BYTES) flush();
    batch.push(item);
    bytes += size;
  }
  flush();
  return messages;
}

/**
 * The held answers' outbox rows (each the JSON array of one event's observations, as
 * `Outbox.holdObservations` wrote it) as model-update messages: exactly `outboxMessages` of the rows
 * parsed and concatenated. When they fit in one message (the usual case) it is assembled from the
 * rows' text: JSON.stringify of what JSON.parse read back from JSON.stringify's text is that text, so
 * the message is the same string without every observation parsed and serialized twice more.
 */
export function heldMessages(graphUuid: string, rows: readonly string[]): string[] {
  const lists = rows.map((r) => r.slice(1, -1)).filter((list) => list.length > 0);
  if (lists.length === 0) return [];
  const text = `{"graphUuid":${JSON.stringify(graphUuid)},"observations":[${lists.join(",")}]}`;
  // outboxMessages counts each observation's size with its separator, one more byte than the text:
  // below MESSAGE_BYTES it neither splits nor drops an objective list.
  if (utf8Bytes(text) < MESSAGE_BYTES) return [text];
  return outboxMessages(
    graphUuid,
    rows.flatMap((r) => JSON.parse(r) as ItemObservation[]),
  );
}

/**
 * A statistics delta as outbox messages of at most MESSAGE_BYTES each: split by objective (an
 * objective's items travel with it), the speed sums in the first. Sums add up the same however split.
 */
export function populationMessages(graphUuid: string, delta: StatisticsDelta): string[] {
  const itemsOf = new Map<string, StatisticsDelta["items"]>();
  for (const [item, c] of Object.entries(delta.items)) {
    const group = itemsOf.get(c.objective) ?? {};
    group[item] = c;
    itemsOf.set(c.objective, group);
  }
  const objectives = new Set([...Object.keys(delta.objectives), ...itemsOf.keys()]);
  const messages: string[] = [];
  let part = emptyDelta();
  part.speed = delta.speed;
  const body = () => JSON.stringify({ graphUuid, observations: [], population: part } satisfies Omit<ModelUpdateMessage, "id">);
  let bytes = utf8Bytes(body());
  for (const objective of objectives) {
    const share = { objective: delta.objectives[objective], items: itemsOf.get(objective) ?? {} };
    const size = utf8Bytes(JSON.stringify(share)) + objective.length * 2 + 8;
    if (bytes + size > MESSAGE_BYTES && (Object.keys(part.objectives).length || Object.keys(part.items).length)) {
      messages.push(body());
      part = emptyDelta();
      bytes = utf8Bytes(body());
    }
    if (share.objective) part.objectives[objective] = share.objective;
    Object.assign(part.items, share.items);
    bytes += size;
  }
  messages.push(body());
  return messages;
}
