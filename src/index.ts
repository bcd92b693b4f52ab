import { env as startupEnv } from "cloudflare:workers";
import { createApp } from "./app";
import { configFrom } from "./config";
import { openDb } from "./db/client";
import type { Env } from "./env";
import { DEAD_LETTER_SUFFIX, QUEUE_PREFIX, recordDeadLetters, replayDeadLetters } from "./queues/dead-letters";
import { consumeErasures, resumeStalledErasures } from "./queues/erasures";
import type { ErasureMessage, ModelUpdateBody } from "./queues/messages";
import { consumeModelUpdates } from "./queues/model-updates";
import { consumeProjections } from "./queues/projections";
import { runRetention } from "./queues/retention";

export { IpGate } from "./objects/ip-gate";
export { PartnerGate } from "./objects/partner-gate";
export { RegistrationObject } from "./objects/registration/registration-object";
export { TokenGate } from "./objects/token-gate";

// A bad configuration (a CORS_ALLOWED_ORIGINS with "*", a short TOKEN_SIGNING_KEY, ...) stops the
// Worker at startup, which fails its deployment (and `npm start`), instead of answering every request
// with a 500 (docs/security.md "What a deployment must configure"; `npm run deploy:check` checks wrangler.toml's vars before).
configFrom(startupEnv as Env);

const app = createApp();

export default {
  fetch: app.fetch,
  async queue(batch, env) {
    const db = openDb(env.DB);
    // Dead-letter queues first: their names start with their main queue's.
    if (batch.queue.endsWith(DEAD_LETTER_SUFFIX)) await recordDeadLetters(batch, db);
    else if (batch.queue.startsWith(QUEUE_PREFIX.projections)) await consumeProjections(batch, db);
    else if (batch.queue.startsWith(QUEUE_PREFIX.modelUpdates)) await consumeModelUpdates(batch as MessageBatch<ModelUpdateBody>, env);
    else if (batch.queue.startsWith(QUEUE_PREFIX.erasures)) await consumeErasures(batch as MessageBatch<ErasureMessage>, env, db);
    else batch.retryAll();
  },
  /** Every minute (wrangler.toml): dead letters an operator asked to replay, stalled erasures, the retention pass. */
  async scheduled(controller, env) {
    const db = openDb(env.DB);
    const jobs = await Promise.allSettled([
      replayDeadLetters(env, db),
      resumeStalledErasures(env, db, controller.scheduledTime),
      runRetention(env, db, controller.scheduledTime),
    ]);
    const failed = jobs.filter((j) => j.status === "rejected");
    if (failed.length)
      throw new AggregateError(
        failed.map((f) => f.reason),
        "scheduled jobs failed",
      );
  },
} satisfies ExportedHandler<Env, unknown>;
