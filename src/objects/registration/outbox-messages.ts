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

/**
 * An outbox row's message (the JSON of an object with other fields first, as this file writes them)
 * with its id added first: the text of `JSON.stringify({ id, ...JSON.parse(json) })`, without parsing.
 */
export const withId = (id: string, json: string): string => `{"id":${JSON.stringify(id)},${json.slice(1)}`;

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
 *
 * When the split's own size count cannot reach MESSAGE_BYTES (the usual case), it would send one
 * message, and that message is built directly: the same string, without one JSON.stringify and UTF-8
 * encoding per objective to count sizes (docs/performance.md, seventh pass).
 */
export function populationMessages(graphUuid: string, delta: StatisticsDelta): string[] {
  // Counts of up to 8 numbers in JSON, with their names, take about 150-250 bytes: a delta with more
  // entries than this is likely to need the split, so the single message is not built first in vain.
  if ((Object.keys(delta.objectives).length + Object.keys(delta.items).length) * LIKELY_ENTRY_BYTES > MESSAGE_BYTES) return splitPopulation(graphUuid, delta);
  const groups = byObjective(delta);
  const whole = emptyDelta();
  whole.speed = delta.speed;
  const empty = populationBody(graphUuid, whole);
  let overhead = 0;
  for (const [objective, share] of groups) {
    if (share.objective) whole.objectives[objective] = share.objective;
    Object.assign(whole.items, share.items);
    overhead += SHARE_OVERHEAD + objective.length * 2 + 8;
  }
  const one = populationBody(graphUuid, whole);
  // Every objective's share text is part of `one`, so this bounds the split's count from above.
  if (utf8Bytes(empty) + utf8Bytes(one) + overhead <= MESSAGE_BYTES) return [one];
  return splitPopulation(graphUuid, delta);
}

/** A generous size of one objective's or item's counts in a message (only chooses which way is tried first). */
const LIKELY_ENTRY_BYTES = 400;

/** Characters of `{"objective":…,"items":{…}}` besides the objective's counts and its items' entries. */
const SHARE_OVERHEAD = 25;

const populationBody = (graphUuid: string, part: StatisticsDelta) =>
  JSON.stringify({ graphUuid, observations: [], population: part } satisfies Omit<ModelUpdateMessage, "id">);

/** An objective's part of a delta: its counts (if any) and its items' counts. */
interface Share {
  objective: StatisticsDelta["objectives"][string] | undefined;
  items: StatisticsDelta["items"];
}

/** Each objective of the delta (those with counts first, then those only its items name) with its share. */
function byObjective(delta: StatisticsDelta): Map<string, Share> {
  const itemsOf = new Map<string, StatisticsDelta["items"]>();
  for (const [item, c] of Object.entries(delta.items)) {
    const group = itemsOf.get(c.objective) ?? {};
    group[item] = c;
    itemsOf.set(c.objective, group);
  }
  const groups = new Map<string, Share>();
  for (const objective of new Set([...Object.keys(delta.objectives), ...itemsOf.keys()])) {
    groups.set(objective, { objective: delta.objectives[objective], items: itemsOf.get(objective) ?? {} });
  }
  return groups;
}

/** `populationMessages` split by counting each objective's share as it goes (what the single message above is checked against). */
export function splitPopulation(graphUuid: string, delta: StatisticsDelta): string[] {
  const messages: string[] = [];
  let part = emptyDelta();
  part.speed = delta.speed;
  let bytes = utf8Bytes(populationBody(graphUuid, part));
  for (const [objective, share] of byObjective(delta)) {
    const size = utf8Bytes(JSON.stringify(share)) + objective.length * 2 + 8;
    if (bytes + size > MESSAGE_BYTES && (Object.keys(part.objectives).length || Object.keys(part.items).length)) {
      messages.push(populationBody(graphUuid, part));
      part = emptyDelta();
      bytes = utf8Bytes(populationBody(graphUuid, part));
    }
    if (share.objective) part.objectives[objective] = share.objective;
    Object.assign(part.items, share.items);
    bytes += size;
  }
  messages.push(populationBody(graphUuid, part));
  return messages;
}
