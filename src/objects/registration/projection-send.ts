import type { ProjectionMessage } from "../../queues/messages";
import { MESSAGE_BYTES, SEND_BATCH_BYTES, SEND_BATCH_MESSAGES, utf8Bytes } from "./outbox-messages";

/**
 * Sends a publication's projection messages to their queue, in batches within the queue's limits:
 * "empty" once all were taken, "failed" when the queue refused one (the caller publishes them again).
 */
export async function sendProjections(queue: Queue<ProjectionMessage>, messages: ProjectionMessage[]): Promise<"empty" | "failed"> {
  let batch: { body: ProjectionMessage }[] = [];
  let bytes = 0;
  try {
    for (const body of messages) {
      const size = utf8Bytes(JSON.stringify(body));
      if (size > MESSAGE_BYTES) throw new Error(`projection message of ${size} bytes exceeds ${MESSAGE_BYTES}`);
      if (batch.length > 0 && (bytes + size > SEND_BATCH_BYTES || batch.length === SEND_BATCH_MESSAGES)) {
        await queue.sendBatch(batch);
        batch = [];
        bytes = 0;
      }
      batch.push({ body });
      bytes += size;
    }
    if (batch.length) await queue.sendBatch(batch);
    return "empty";
  } catch (error) {
    console.error(JSON.stringify({ outbox: "projections", error: "send failed, retrying", detail: String(error) }));
    return "failed";
  }
}
