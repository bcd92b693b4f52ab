import { z } from "@hono/zod-openapi";
import { uuid } from "./common";

/** The intents of spec 2.4; which a goal may use depends on its adaptive_behavior (docs/api-conventions.md "Recommendation intents by goal behaviour"). */
export const INTENTS = [
  "introduction",
  "diagnostic",
  "instruction_intervention",
  "mastery_demonstration",
  "continued_practice",
  "focused_practice",
  "interleaving",
] as const;

export const RECOMMENDATION_STATUSES = ["unfocused", "in progress", "ready"] as const;

/** Query booleans are spelled `true` or `false`. */
const queryFlag = (name: string, description: string) =>
  z
    .enum(["true", "false"])
    .optional()
    .transform((v) => v === "true")
    .openapi({ param: { name, in: "query" }, description });

export const RecommendationQuery = z.object({
  goal_id: uuid.openapi({ param: { name: "goal_id", in: "query" }, description: "Goal to target (assigned to the registration)." }),
  continued_recommendations: queryFlag("continued_recommendations", "Default false. When true, modules are returned even when the goal is complete."),
  justifications: queryFlag("justifications", "Default false. When true, the top module's justification is included."),
});

export const JustificationSchema = z
  .object({
    current_learning_objective_id: z.string().openapi({ description: "Learning objective the module is aligned with." }),
    target_learning_objective_id: z.string().openapi({ description: "Goal target objective the module aims to advance." }),
    target_topic_id: z.string().optional().openapi({ description: "Goal topic holding the target objective; absent when the goal has no topics." }),
    remedial: z.boolean().openapi({ description: "True when the current objective is a prerequisite of the target objective." }),
    intent: z.enum(INTENTS),
  })
  .openapi("Justification");

export const RecommendationSchema = z
  .object({
    recommendation_id: z
      .number()
      .int()
      .openapi({ description: "Stays the same while no event has changed the learner state since it was computed; new after one." }),
    module_ids: z.array(z.string()).openapi({ description: "At most 10 modules (mref- labels), most preferred first; empty when the goal is complete." }),
    status: z.enum(RECOMMENDATION_STATUSES),
    focus_state: z.literal("focused").openapi({ description: "Deprecated; requesting a recommendation focuses the goal." }),
    stuck: z.boolean().openapi({ description: "The learner is unlikely to progress with more adaptive work on the focused objective." }),
    justifications: z
      .record(z.string(), JustificationSchema)
      .optional()
      .openapi({ description: "Only with justifications=true: an entry for the top module." }),
  })
  .openapi("Recommendation");

export type RecommendationView = z.infer<typeof RecommendationSchema>;
