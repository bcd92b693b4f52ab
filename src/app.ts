import { bodyLimit } from "hono/body-limit";
import { requestId } from "hono/request-id";
import { configFrom } from "./config";
import { openDb } from "./db/client";
import { ApiError, onError, onNotFound } from "./http/errors";
import { createRouter } from "./lib/router";
import { accountsRouter } from "./routes/accounts";
import { batchRouter } from "./routes/batch";
import { docsRouter } from "./routes/docs";
import { eventsRouter } from "./routes/events";
import { GRAPH_BODY_LIMIT_BYTES, graphsRouter, takesGraphDocument } from "./routes/graphs";
import { goalsRouter } from "./routes/goals";
import { learningInstancesRouter } from "./routes/learning-instances";
import { oauthRouter } from "./routes/oauth";
import { registrationsRouter } from "./routes/registrations";

export function createApp() {
  const app = createRouter();

  app.use(requestId({ headerName: "X-Request-Id" }));
  app.use(async (c, next) => {
    const label = c.req.header("Request-Label");
    c.set("config", configFrom(c.env));
    c.set("db", openDb(c.env.DB));
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
      description:
        "Adaptive learning analytics and recommendations. Obtain a token with POST /v0/oauth/token, then send `Authorization: Bearer <token>`.",
    },
  });

  app.onError(onError);
  app.notFound(onNotFound);
  return app;
}
