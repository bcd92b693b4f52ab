import { bodyLimit } from "hono/body-limit";
import { requestId } from "hono/request-id";
import { type Config, configFrom } from "./config";
import { type Db, openDb } from "./db/client";
import type { Env } from "./env";
import { ApiError, onError, onNotFound } from "./http/errors";
import { createRouter } from "./http/router";
import { accountsRouter } from "./routes/accounts";
import { batchRouter } from "./routes/batch";
import { docsRouter } from "./routes/docs";
import { eventsRouter } from "./routes/events";
import { goalsRouter } from "./routes/goals";
import { GRAPH_BODY_LIMIT_BYTES, graphsRouter, takesGraphDocument } from "./routes/graphs";
import { learningInstancesRouter } from "./routes/learning-instances";
import { oauthRouter } from "./routes/oauth";
import { registrationsRouter } from "./routes/registrations";

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

  app.use(requestId({ headerName: "X-Request-Id" }));
  app.use(async (c, next) => {
    const label = c.req.header("Request-Label");
    const { config, db } = forEnv(c.env);
    c.set("config", config);
    c.set("db", db);
    await next();
    if (label) c.res.headers.set("Request-Label", label);
  });
  const defaultBodyLimit = bodyLimit({
    maxSize: 1024 * 1024,
    onError: () => {
      throw new ApiError(413, "The request body is larger than 1 MiB.");
    },
  });
  // Graph documents (POST /v0/graphs, /v0/graphs/validate, PUT /v0/graphs/{id}) may reach 16 MiB; 1 MiB everywhere else.
  const graphBodyLimit = bodyLimit({
    maxSize: GRAPH_BODY_LIMIT_BYTES,
    onError: () => {
      throw new ApiError(413, `The graph document is larger than ${GRAPH_BODY_LIMIT_BYTES / 1024 / 1024} MiB.`);
    },
  });
  app.use((c, next) => (takesGraphDocument(c.req.method, c.req.path) ? graphBodyLimit : defaultBodyLimit)(c, next));

  app.route("/", oauthRouter);
  app.route("/", accountsRouter);
  app.route("/", batchRouter);
  app.route("/", learningInstancesRouter);
  app.route("/", registrationsRouter);
  app.route("/", eventsRouter);
  app.route("/", graphsRouter);
  app.route("/", goalsRouter);
  app.route("/", docsRouter);

  app.openAPIRegistry.registerComponent("securitySchemes", "Bearer", { type: "http", scheme: "bearer" });
  app.openAPIRegistry.registerComponent("securitySchemes", "Basic", { type: "http", scheme: "basic" });
  app.doc31("/v0/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Pathwise API",
      version: "0.1.0",
      description: "Adaptive learning analytics and recommendations. Obtain a token with POST /v0/oauth/token, then send `Authorization: Bearer <token>`.",
    },
  });

  app.onError(onError);
  app.notFound(onNotFound);
  return app;
}
