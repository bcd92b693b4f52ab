import { type Config, configFrom } from "./config";
import { type Db, openDb } from "./db/client";
import type { Env } from "./env";
import { apiDocument } from "./http/api-document";
import { bodySizeLimit } from "./http/body-limit";
import { corsForListedOrigins } from "./http/cors";
import { onError } from "./http/errors";
import { requestId } from "./http/request-id";
import { createRouter } from "./http/router";
import { securityHeaders } from "./http/security-headers";
import { staticAssetOrNotFound } from "./http/static-assets";
import { accountsRouter } from "./routes/accounts";
import { batchRouter } from "./routes/batch";
import { dataRequestsRouter } from "./routes/data-requests";
import { docsRouter } from "./routes/docs";
import { erasuresRouter } from "./routes/erasures";
import { eventsRouter } from "./routes/events";
import { exportsRouter } from "./routes/exports";
import { goalsRouter } from "./routes/goals";
import { graphsRouter } from "./routes/graphs";
import { learningInstancesRouter } from "./routes/learning-instances";
import { metricsRouter } from "./routes/metrics";
import { oauthRouter } from "./routes/oauth";
import { opsRouter } from "./routes/ops";
import { predictedScoreRouter } from "./routes/predicted-score";
import { recommendationsRouter } from "./routes/recommendations";
import { registrationsRouter } from "./routes/registrations";
import { statusAndProgressRouter } from "./routes/status-and-progress";
import { xapiRouter } from "./routes/xapi";

/**
 * The config and the drizzle instance derived from one env object. The runtime hands every request
 * of an isolate the same env object (a new one when bindings change), so both are built once per
 * env instead of per request; a WeakMap keyed by the env lets a replaced env and its entry go.
 */
const perEnv = new WeakMap<Env, { config: Config; db: Db }>();

function forEnv(env: Env): { config: Config; db: Db } {
  let entry = perEnv.get(env);
  if (!entry) {
    entry = { config: configFrom(env), db: openDb(env.DB) };
    perEnv.set(env, entry);
  }
  return entry;
}

export function createApp() {
  const app = createRouter();

  app.use(requestId());
  app.use(securityHeaders());
  app.use(async (c, next) => {
    const { config, db } = forEnv(c.env);
    c.set("config", config);
    c.set("db", db);
    await next();
  });
  app.use("/v0/*", corsForListedOrigins());
  app.use(bodySizeLimit());

  app.openAPIRegistry.registerComponent("securitySchemes", "Bearer", { type: "http", scheme: "bearer" });
  app.openAPIRegistry.registerComponent("securitySchemes", "Basic", { type: "http", scheme: "basic" });
  app.doc31("/v0/openapi.json", apiDocument);
  app.onError(onError);
  app.notFound(staticAssetOrNotFound);

  return app
    .route("/", oauthRouter)
    .route("/", accountsRouter)
    .route("/", batchRouter)
    .route("/", learningInstancesRouter)
    .route("/", registrationsRouter)
    .route("/", eventsRouter)
    .route("/", xapiRouter)
    .route("/", graphsRouter)
    .route("/", goalsRouter)
    .route("/", recommendationsRouter)
    .route("/", statusAndProgressRouter)
    .route("/", metricsRouter)
    .route("/", predictedScoreRouter)
    .route("/", erasuresRouter)
    .route("/", exportsRouter)
    .route("/", dataRequestsRouter)
    .route("/", docsRouter)
    .route("/", opsRouter);
}
