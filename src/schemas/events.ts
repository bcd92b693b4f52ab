import { z } from "@hono/zod-openapi";
import { isoDateTime, uuid } from "./common";
import { MAX_BATCH_EVENTS } from "./limits";
import { identifierText } from "./text";

const ModuleId = identifierText.min(1).max(200).openapi({ description: "Atom UUID or its mref- label", example: "mref-frac-add-q1" });
const Duration = z
  .number()
  .int()
  .min(0)
  .max(7 * 24 * 3600 * 1000)
  .openapi({ description: "Estimated time of primary attention, milliseconds" });

/** An event time: ISO 8601 in 1970..2100 (decisions.md "Input hygiene"); the future bound (5 minutes) is checked by the route. */
const EventTime = isoDateTime;

const workFields = {
  duration: Duration.optional(),
  module_id: ModuleId,
  interaction_end_time: EventTime,
  is_complete: z.boolean().optional().openapi({ description: "Unused; send true." }),
  goal_id: uuid.optional(),
};

export const UngradedEvent = z.object(workFields).openapi("UngradedEvent");

export const GradedEvent = z
  .object({
    ...workFields,
    is_correct: z.boolean(),
    instance_hash: identifierText.min(1).max(200).optional().openapi({ description: "Which instance of an algorithmic question was shown" }),
  })
  .openapi("GradedEvent");

export const RecommendationFollowedEvent = z
  .object({
    module_id: ModuleId,
    time_followed: EventTime,
    recommendation_id: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  })
  .openapi("RecommendationFollowedEvent");

export const FocusEvent = z.object({ goal_id: uuid }).openapi("FocusEvent");

export const BatchEvents = z
  .object({
    goal_id: uuid.optional().openapi({ description: "Acts as a focus event for this goal before the batch's events" }),
    ignore_invalid_module_ids: z.boolean().optional().default(false),
    events: z
      .array(
        z.discriminatedUnion("type", [
          GradedEvent.extend({ type: z.literal("graded-events") }),
          UngradedEvent.extend({ type: z.literal("ungraded-events") }),
          RecommendationFollowedEvent.extend({ type: z.literal("recommendation-followed") }),
        ]),
      )
      .min(1)
      .max(MAX_BATCH_EVENTS, { message: `at most ${MAX_BATCH_EVENTS} events per batch` })
      .openapi({ description: "Most recent event first (reverse chronological)" }),
  })
  .openapi("BatchEvents", {
    example: {
      goal_id: "5f0c1c9e-2a6b-4c1e-9d43-7f2b8e6a1d20",
      ignore_invalid_module_ids: false,
      events: [
        {
          type: "graded-events",
          module_id: "mref-two-step-eq-q1",
          interaction_end_time: "2027-01-05T15:04:00Z",
          is_correct: true,
          is_complete: true,
          duration: 42000,
        },
        { type: "ungraded-events", module_id: "mref-two-step-eq-lesson", interaction_end_time: "2027-01-05T15:00:00Z", is_complete: true, duration: 180000 },
      ],
    },
  });
