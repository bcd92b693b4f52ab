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

/**
 * `populationMessages` split by counting each objective's share as it goes (what the single message
 * above is checked against). Each count is serialized once: a share's size and the messages' text are
 * put together from its entries' JSON, the text JSON.stringify gives the parts (test), instead of
 * every share stringified to be measured and again inside its message (docs/performance.md, ninth pass).
 */
export function splitPopulation(graphUuid: string, delta: StatisticsDelta): string[] {
  const messages: string[] = [];
  const head = `{"graphUuid":${JSON.stringify(graphUuid)},"observations":[],"population":`;
  let speed = delta.speed;
  let part: Part = { objectives: [], items: [] };
  const emptyBytes = () => utf8Bytes(populationBody(graphUuid, { ...emptyDelta(), speed }));
  let bytes = emptyBytes();
  const flush = () => {
    messages.push(`${head}{"items":{${jsonOrder(part.items)}},"objectives":{${jsonOrder(part.objectives)}},"speed":${JSON.stringify(speed)}}}`);
    part = { objectives: [], items: [] };
    speed = emptyDelta().speed;
  };
  for (const [objective, share] of byObjective(delta)) {
    const counts = share.objective && JSON.stringify(share.objective);
    const items = Object.entries(share.items).map(([item, c]): Entry => [item, `${JSON.stringify(item)}:${JSON.stringify(c)}`]);
    // utf8Bytes(JSON.stringify(share)): {"objective":…,"items":{…}}, the objective only when it has counts
    let shareBytes = (counts ? 13 + utf8Length(counts) : 0) + 12 + Math.max(0, items.length - 1);
    for (const [, text] of items) shareBytes += utf8Length(text);
    const size = shareBytes + objective.length * 2 + 8;
    if (bytes + size > MESSAGE_BYTES && (part.objectives.length || part.items.length)) {
      flush();
      bytes = emptyBytes();
    }
    if (counts) part.objectives.push([objective, `${JSON.stringify(objective)}:${counts}`]);
    part.items.push(...items);
    bytes += size;
  }
  flush();
  return messages;
}

/** A message's counts being put together: each entry's key and its `"key":value` text, in insertion order. */
type Entry = [key: string, text: string];
interface Part {
  objectives: Entry[];
  items: Entry[];
}

/** The entries joined in the order JSON.stringify writes an object's keys: array indices ascending first, then the others as inserted. */
function jsonOrder(entries: Entry[]): string {
  const indices = entries.filter(([k]) => isArrayIndex(k)).sort(([a], [b]) => Number(a) - Number(b));
  if (indices.length === 0) return entries.map(([, t]) => t).join(",");
  return [...indices, ...entries.filter(([k]) => !isArrayIndex(k))].map(([, t]) => t).join(",");
}

const isArrayIndex = (key: string) => /^(0|[1-9]\d*)$/.test(key) && Number(key) < 2 ** 32 - 1;

/** UTF-8 length without encoding when the text is ASCII (JSON of our labels nearly always is). */
const utf8Length = (text: string) => (/[\u0080-\uffff]/.test(text) ? utf8Bytes(text) : text.length);
