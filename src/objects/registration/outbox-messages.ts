import type { ItemObservation, ModelUpdateMessage } from "../../services/item-params";

/** Queues take messages of at most 128 KB; ours stay well below. */
export const MESSAGE_BYTES = 100_000;

export const utf8Bytes = (text: string) => new TextEncoder().encode(text).byteLength;

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
