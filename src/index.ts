import { createApp } from "./app";
import type { Env } from "./env";
import { consumeModelUpdates, recordDeadModelUpdates } from "./queues/model-updates";
import type { ModelUpdateMessage } from "./services/item-params";

export { IpGate } from "./objects/ip-gate";
export { PartnerGate } from "./objects/partner-gate";
export { RegistrationObject } from "./objects/registration/registration-object";
export { TokenGate } from "./objects/token-gate";

const app = createApp();

/** wrangler.toml: where pathwise-model-updates moves a message after its last retry. */
const DEAD_LETTER_QUEUE = "pathwise-model-updates-dlq";

export default {
  fetch: app.fetch,
  async queue(batch, env) {
    // The dead-letter queue first: its name starts with the main queue's.
    if (batch.queue.startsWith(DEAD_LETTER_QUEUE)) await recordDeadModelUpdates(batch, env);
    else if (batch.queue.startsWith("pathwise-model-updates")) await consumeModelUpdates(batch as MessageBatch<ModelUpdateMessage>, env);
    else batch.retryAll();
  },
} satisfies ExportedHandler<Env, ModelUpdateMessage>;
