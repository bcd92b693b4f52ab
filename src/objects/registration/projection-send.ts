import type { ProjectionMessage } from "../../queues/messages";
import { batchLength, MESSAGE_BYTES, utf8Bytes } from "./outbox-messages";

/**
 * Sends a publication's projection messages to their queue, in batches within the queue's limits:
 * "empty" once all were taken, "failed" when the queue refused one (the caller publishes them again).
 */
export async function sendProjections(queue: Queue<ProjectionMessage>, messages: ProjectionMessage[]): Promise<"empty" | "failed"> {
  try {
    const sizes = messages.map((m) => utf8Bytes(JSON.stringify(m)));
    const tooLarge = sizes.find((size) => size > MESSAGE_BYTES);
    if (tooLarge !== undefined) throw new Error(`projection message of ${tooLarge} bytes exceeds ${MESSAGE_BYTES}`);
    for (let at = 0; at < messages.length; ) {
      const n = batchLength(sizes.slice(at));
      await queue.sendBatch(messages.slice(at, at + n).map((body) => ({ body })));
      at += n;
    }
    return "empty";
  } catch (error) {
    console.error(JSON.stringify({ outbox: "projections", error: "send failed, retrying", detail: String(error) }));
    return "failed";
  }
}
