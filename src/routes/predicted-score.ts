import { apiRoute } from "../http/define-route";
import { createRouter } from "../http/router";
import { json, jsonBody, refusal } from "../schemas/common";
import { PredictedScoreBody, PredictedScoreResponse } from "../schemas/predicted-score";
import { predictedScoreFor } from "../services/predicted-score";
import { authorize } from "./authorize";

const predictedScoreRoute = apiRoute({
  method: "post",
  path: "/v0/accounts/metrics/predicted-score",
  tags: ["Analytics"],
  operationId: "getPredictedScores",
  summary: "Get predicted scores",
  description:
    "How each account would score today on each group of learning objectives of a graph, at the requested confidence levels (for example the 10th, 50th and 90th percentiles), from the learner model across all the account's registrations on that graph (docs/analytics.md). Limited to 140 requests a minute across the partner.",
  request: { body: jsonBody(PredictedScoreBody) },
  responses: {
    200: json(PredictedScoreResponse, "Scores per account; group_scores and its alias grouped_scores"),
    422: refusal("Unknown graph, or an objective not in the graph (details name it)"),
  },
});

export const predictedScoreRouter = createRouter().openapi(predictedScoreRoute, async (c) => {
  await authorize(c);
  return c.json(await predictedScoreFor(c.get("db"), c.get("caller").partnerId, c.req.valid("json")), 200);
});
