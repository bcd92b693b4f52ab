import { openDb } from "../db/client";
import type { Env } from "../env";
import { SERVICE_PARAMS } from "../model/service-params";
import { applyModelUpdates, type ModelUpdateMessage } from "../services/item-params";

/**
 * Consumer of the model-updates queue: graded answers from every registration refine the item
 * parameters of their graph (src/model/item-refine.ts). Idempotent: applied message ids are recorded
 * in the same D1 transaction as the parameter writes. A failure retries the whole batch.
 */
export async function consumeModelUpdates(batch: MessageBatch<ModelUpdateMessage>, env: Env): Promise<void> {
  await applyModelUpdates(
    openDb(env.DB),
    SERVICE_PARAMS,
    batch.messages.map((m) => m.body),
  );
  batch.ackAll();
}
