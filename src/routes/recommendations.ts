import { apiRoute } from "../http/define-route";
import { createRouter } from "../http/router";
import { json, uuidParams } from "../schemas/common";
import { RecommendationQuery, RecommendationSchema } from "../schemas/recommendations";
import { recommendationFor, recommendationTarget } from "../services/recommendations";
import { authorize, registrationSubject } from "./authorize";

const recommendationRoute = apiRoute({
  method: "get",
  path: "/v0/registrations/{id}/recommendation",
  tags: ["Recommendations"],
  operationId: "getRecommendation",
  summary: "Get the next recommended modules",
  description:
    "The modules the learner should work on next for a goal assigned to the registration, best first, with the goal's status and, with `justifications=true`, why each was chosen (docs/recommendation.md). Asking focuses the goal. The `recommendation_id` stays the same until an event changes the learner state; send it back in recommendation-followed events.",
  request: { params: uuidParams("id"), query: RecommendationQuery },
  responses: { 200: json(RecommendationSchema, "The recommendation (the same recommendation_id until an event changes the learner state)") },
});

export const recommendationsRouter = createRouter().openapi(recommendationRoute, async (c) => {
  const { goal_id, continued_recommendations, justifications } = c.req.valid("query");
  // The registration and the goal in one read; the caller rule is applied before anything about the goal is answered.
  const target = await recommendationTarget(c.get("db"), c.req.valid("param").id, goal_id);
  await authorize(c, registrationSubject(target.context.registration));
  const view = await recommendationFor(c.env, target, { continuedRecommendations: continued_recommendations, justifications });
  return c.json(view, 200);
});
