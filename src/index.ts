import { createApp } from "./app";
import type { Env } from "./env";
import { consumeModelUpdates } from "./queues/model-updates";
import type { ModelUpdateMessage } from "./services/item-params";

export { IpGate } from "./objects/ip-gate";
export { PartnerGate } from "./objects/partner-gate";
export { RegistrationObject } from "./objects/registration/registration-object";
export { TokenGate } from "./objects/token-gate";

const app = createApp();

export default {
  fetch: app.fetch,
  async queue(batch, env) {
    if (batch.queue.startsWith("pathwise-model-updates")) await consumeModelUpdates(batch as MessageBatch<ModelUpdateMessage>, env);
    else batch.retryAll();
  },
} satisfies ExportedHandler<Env, ModelUpdateMessage>;
