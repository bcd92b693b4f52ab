import { openDb } from "../db/client";
import type { Env } from "../env";
import { SERVICE_PARAMS } from "../model/service-params";
import { isFenceRefusal } from "../services/erasure/fence";
import { applyModelUpdates } from "../services/item-params";
import type { ModelUpdateBody, ModelUpdateMessage } from "./messages";

/**
 * Consumer of the model-updates queue: graded answers from every registration refine the item
 * parameters of their graph (src/model/item-refine.ts). Idempotent: applied message ids are recorded
 * in the same D1 transaction as the parameter writes, so a redelivered message is applied once.
 *
 * The batch is applied in one transaction. If that fails, each message is applied on its own: the
 * ones that succeed are acknowledged, the failing ones retried (wrangler.toml `max_retries`) and
 * then moved to the dead-letter queue (recorded in D1 by src/queues/dead-letters.ts), so one poison
 * message never holds back or dead-letters the good messages of its batch. Nothing is applied twice in either path (the message-id marks).
 */
export async function consumeModelUpdates(batch: MessageBatch<ModelUpdateBody>, env: Env): Promise<void> {
  const db = openDb(env.DB);
  try {
    await applyModelUpdates(
      db,
      SERVICE_PARAMS,
      batch.messages.map((m) => modelUpdateOf(m.body)),
    );
    batch.ackAll();
    return;
  } catch (error) {
    // A message of an erased registration fails the batch on purpose (src/services/erasure/fence.ts): not an error.
    const log = isFenceRefusal(error) ? console.log : console.error;
    log(JSON.stringify({ queue: batch.queue, messages: batch.messages.length, batch: "failed; applying one by one", error: String(error) }));
  }
  for (const message of batch.messages) {
    try {
      await applyModelUpdates(db, SERVICE_PARAMS, [modelUpdateOf(message.body)]);
      message.ack();
    } catch (error) {
      if (isFenceRefusal(error)) {
        // its registration was erased: the message is dropped (docs/privacy.md)
        message.ack();
        continue;
      }
      const bodyId = idOf(message.body);
      console.error(
        JSON.stringify({ queue: batch.queue, message: message.id, body_id: bodyId, attempts: message.attempts, retry: true, error: String(error) }),
      );
      message.retry();
    }
  }
}

/** The message a body carries (the outbox sends its JSON as text, src/queues/messages.ts). */
const modelUpdateOf = (body: ModelUpdateBody): ModelUpdateMessage => (typeof body === "string" ? (JSON.parse(body) as ModelUpdateMessage) : body);

/** The id a body names, for the log (none when it is not a message). */
function idOf(body: ModelUpdateBody): unknown {
  try {
    return (modelUpdateOf(body) as { id?: unknown } | null)?.id;
  } catch {
    return undefined;
  }
}
