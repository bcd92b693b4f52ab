import { z } from "@hono/zod-openapi";
import { authorize } from "../http/authorize";
import { apiRoute } from "../http/define-route";
import { createRouter } from "../http/router";
import { json, jsonBody } from "../schemas/common";
import { PredictedScoreBody, PredictedScoreResponse } from "../schemas/predicted-score";
import { predictedScoreFor } from "../services/predicted-score";

const route = apiRoute({
  method: "post",
  path: "/v0/accounts/metrics/predicted-score",
  tags: ["Analytics"],
  summary: "How each account would score on groups of objectives today, at the requested confidence levels (140/min per partner)",
  request: { body: jsonBody(PredictedScoreBody) },
  responses: {
    200: json(PredictedScoreResponse, "Scores per account; group_scores and its alias grouped_scores"),
    422: json(z.any(), "Unknown graph, or an objective not in the graph (details name it)"),
  },
});

export const predictedScoreRouter = createRouter().openapi(route, async (c) => {
  await authorize(c);
  return c.json(await predictedScoreFor(c.get("db"), c.get("caller").partnerId, c.req.valid("json")), 200);
});
