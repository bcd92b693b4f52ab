import { authorizedRegistration } from "../http/authorize";
import { apiRoute } from "../http/define-route";
import { createRouter } from "../http/router";
import { json, uuidParams } from "../schemas/common";
import { RecommendationQuery, RecommendationSchema } from "../schemas/recommendations";
import { recommendationFor } from "../services/recommendations";

const recommendationRoute = apiRoute({
  method: "get",
  path: "/v0/registrations/{id}/recommendation",
  tags: ["Recommendations"],
  summary: "The modules the learner should do next for an assigned goal, best first (focuses the goal)",
  request: { params: uuidParams("id"), query: RecommendationQuery },
  responses: { 200: json(RecommendationSchema, "The recommendation (the same recommendation_id until an event changes the learner state)") },
});

export const recommendationsRouter = createRouter().openapi(recommendationRoute, async (c) => {
  const context = await authorizedRegistration(c, c.req.valid("param").id);
  const { goal_id, continued_recommendations, justifications } = c.req.valid("query");
  const view = await recommendationFor(c.env, c.get("db"), context, goal_id, { continuedRecommendations: continued_recommendations, justifications });
  return c.json(view, 200);
});
