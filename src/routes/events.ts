import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../http/app-env";
import { apiRoute } from "../http/define-route";
import { createRouter } from "../http/router";
import type { EventInput } from "../objects/registration/rpc";
import { jsonBody, refusal, uuidParams } from "../schemas/common";
import { BatchEvents, FocusEvent, GradedEvent, RecommendationFollowedEvent, UngradedEvent } from "../schemas/events";
import { identifierText } from "../schemas/text";
import { checkTimes, ingestEvents } from "../services/events";
import type { RegistrationContext } from "../services/registrations";
import { authorizedRegistration } from "./authorize";

const params = uuidParams("id");
const IdempotencyHeaders = z.object({
  "idempotency-key": identifierText
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: "Idempotency-Key: a retry with the same key returns the first outcome (kept 24 h)" }),
});
const stored = { description: "Stored durably and applied to the learner model" };
const refused = refusal("Unknown module or goal id (details name them), or an Idempotency-Key reused for a different request");
const EVENTS_CONTRACT =
  "Answered 204 once the events are stored durably and applied to the learner model: a recommendation requested right after already reflects them. An event more than 5 minutes in the future or before 1970 is 400. With an `Idempotency-Key` header a retry returns the first outcome (kept 24 h), so a lost answer can be retried without counting the events twice.";

function eventRoute<const P extends string, B extends z.ZodType>(path: P, operationId: string, summary: string, description: string, body: B) {
  return apiRoute({
    method: "post",
    path,
    operationId,
    tags: ["Events"],
    summary,
    description: `${description}\n\n${EVENTS_CONTRACT}`,
    request: { params, headers: IdempotencyHeaders, body: jsonBody(body) },
    responses: { 204: stored, 422: refused },
  });
}

const gradedRoute = eventRoute(
  "/v0/registrations/{id}/graded-events",
  "postGradedEvent",
  "Post an answer (graded event)",
  "An answer of the learner on an atom of the graph, right (`is_correct: true`) or wrong: the evidence the learner model learns from. `module_id` is the atom's uuid or mref- label; a bundle or unknown module is 422.",
  GradedEvent,
);
const ungradedRoute = eventRoute(
  "/v0/registrations/{id}/ungraded-events",
  "postUngradedEvent",
  "Post work on instructional content (ungraded event)",
  "Time the learner spent on an atom without an answer (a lesson, a video): counts as exposure and active time.",
  UngradedEvent,
);
const followedRoute = eventRoute(
  "/v0/registrations/{id}/recommendation-followed-events",
  "postRecommendationFollowedEvent",
  "Post that a recommendation was followed",
  "The learner opened a recommended module: `recommendation_id` from GET /v0/registrations/{id}/recommendation. Logged; it does not change the learner state.",
  RecommendationFollowedEvent,
);
const focusRoute = eventRoute(
  "/v0/registrations/{id}/focus-events",
  "postFocusEvent",
  "Focus a goal (deprecated)",
  "Sets the goal the learner works on. Deprecated: requesting a recommendation focuses its goal.",
  FocusEvent,
);
const batchRoute = eventRoute(
  "/v0/registrations/{id}/batch-events",
  "postBatchEvents",
  "Post up to 500 events at once",
  "Graded, ungraded and recommendation-followed events of one registration, most recent first, validated together and stored all or nothing. `goal_id` focuses a goal before the events; `ignore_invalid_module_ids` drops events on unknown modules instead of refusing the batch.",
  BatchEvents,
);

/** Checks the events' times and hands them to the registration's Durable Object (204 once stored). */
async function submit(
  c: Context<AppEnv>,
  context: RegistrationContext,
  events: EventInput[],
  options: { focusGoalId?: string; ignoreInvalidModuleIds?: boolean; newestFirst?: boolean; focusPath?: string } = {},
): Promise<void> {
  const nowMs = Date.now();
  // Request-intrinsic checks only (the clock, the order); goals and modules are checked by the
  // registration's object after its Idempotency-Key lookup, so a retry gets the first outcome.
  checkTimes(events, nowMs, options.newestFirst ?? false);
  const goals = events.filter((e) => e.goalId).map((e) => ({ goalId: e.goalId as string, path: e.path.replace(/module_id$/, "goal_id") }));
  if (options.focusGoalId) goals.unshift({ goalId: options.focusGoalId, path: options.focusPath ?? "body.goal_id" });
  await ingestEvents(c.env, {
    registrationId: context.registration.id,
    accountId: context.registration.accountId,
    registrationCreatedAt: context.registration.createdAt,
    learningInstanceId: context.registration.learningInstanceId,
    goals,
    graphUuid: context.graphUuid,
    graphVersion: context.graphVersion,
    // the API sends batches newest first; the log and the model take them in time order
    events: options.newestFirst ? [...events].reverse() : events,
    focusGoalId: options.focusGoalId,
    ignoreInvalidModuleIds: options.ignoreInvalidModuleIds ?? false,
    idempotencyKey: c.req.header("Idempotency-Key") ?? undefined,
    nowMs,
  });
}

type Work = z.infer<typeof UngradedEvent> & Partial<Pick<z.infer<typeof GradedEvent>, "is_correct" | "instance_hash">>;

function workEvent(kind: "graded" | "ungraded", e: Work, path: string): EventInput {
  return {
    kind,
    moduleId: e.module_id,
    occurredAt: Date.parse(e.interaction_end_time),
    path,
    correct: e.is_correct,
    durationMs: e.duration,
    goalId: e.goal_id,
    instanceHash: e.instance_hash,
  };
}

function followedEvent(e: z.infer<typeof RecommendationFollowedEvent>, path: string): EventInput {
  return { kind: "recommendation-followed", moduleId: e.module_id, occurredAt: Date.parse(e.time_followed), path, recommendationId: e.recommendation_id };
}

export const eventsRouter = createRouter()
  .openapi(gradedRoute, async (c) => {
    const context = await authorizedRegistration(c, c.req.valid("param").id);
    const body = c.req.valid("json");
    await submit(c, context, [workEvent("graded", body, "body.module_id")]);
    return c.body(null, 204);
  })
  .openapi(ungradedRoute, async (c) => {
    const context = await authorizedRegistration(c, c.req.valid("param").id);
    const body = c.req.valid("json");
    await submit(c, context, [workEvent("ungraded", body, "body.module_id")]);
    return c.body(null, 204);
  })
  .openapi(followedRoute, async (c) => {
    const context = await authorizedRegistration(c, c.req.valid("param").id);
    const body = c.req.valid("json");
    await submit(c, context, [followedEvent(body, "body.module_id")]);
    return c.body(null, 204);
  })
  .openapi(focusRoute, async (c) => {
    const context = await authorizedRegistration(c, c.req.valid("param").id);
    const body = c.req.valid("json");
    await submit(c, context, [], { focusGoalId: body.goal_id });
    return c.body(null, 204);
  })
  .openapi(batchRoute, async (c) => {
    const context = await authorizedRegistration(c, c.req.valid("param").id);
    const body = c.req.valid("json");
    const events = body.events.map((e, i) =>
      e.type === "recommendation-followed"
        ? followedEvent(e, `body.events[${i}].module_id`)
        : workEvent(e.type === "graded-events" ? "graded" : "ungraded", e, `body.events[${i}].module_id`),
    );
    await submit(c, context, events, {
      focusGoalId: body.goal_id,
      ignoreInvalidModuleIds: body.ignore_invalid_module_ids,
      newestFirst: true,
    });
    return c.body(null, 204);
  });
