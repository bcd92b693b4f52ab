import { z } from "@hono/zod-openapi";
import { uuid } from "./common";
import { PREDICTED_SCORE_ACCOUNTS_MAX, PREDICTED_SCORE_GROUPS_MAX, PREDICTED_SCORE_OBJECTIVES_MAX } from "./limits";
import { identifierText, ObjectiveId } from "./text";

export const PredictedScoreBody = z
  .object({
    account_ids: z.array(uuid).min(1).max(PREDICTED_SCORE_ACCOUNTS_MAX),
    graph_ids: z
      .array(identifierText.min(1).max(200))
      .min(1, { message: "exactly one graph id (only one graph per request is supported)" })
      .max(1, { message: "exactly one graph id (only one graph per request is supported)" })
      .openapi({ description: "The graph: its gref- label or uuid. Only one graph id is supported." }),
    grouped_learning_objectives: z
      .array(
        z.object({
          group_id: identifierText.min(1).max(200).openapi({ description: "A unique label of the group." }),
          learning_objectives: z
            .array(
              z.object({
                learning_objective_id: ObjectiveId,
                weight: z.number().int().min(1).max(1_000_000).optional().openapi({ description: "Positive integer, default 1." }),
              }),
            )
            .min(1),
        }),
      )
      .min(1)
      .max(PREDICTED_SCORE_GROUPS_MAX)
      .superRefine((groups, ctx) => {
        const seen = new Set<string>();
        let objectives = 0;
        groups.forEach((g, i) => {
          if (seen.has(g.group_id)) ctx.addIssue({ code: "custom", message: `duplicate group_id '${g.group_id}'`, path: [i, "group_id"] });
          seen.add(g.group_id);
          objectives += g.learning_objectives.length;
        });
        if (objectives > PREDICTED_SCORE_OBJECTIVES_MAX)
          ctx.addIssue({ code: "custom", message: `at most ${PREDICTED_SCORE_OBJECTIVES_MAX} objectives over all groups`, path: [] });
      }),
    confidence_levels: z
      .array(z.number().int().min(0).max(100))
      .min(1)
      .max(101)
      .openapi({ description: "Percentiles 0..100: the model believes the learner scores below the C-th with probability C%." }),
    get_overall_score: z.boolean().optional().default(false),
    get_learning_objective_scores: z.boolean().optional().default(false),
    learning_objective_coverage_requirement: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .default(4)
      .openapi({ description: "Distinct answered questions on an objective that count as full coverage; default 4." }),
  })
  .openapi("PredictedScoreRequest", {
    example: {
      account_ids: ["7d1e5a40-8c3b-4e9f-a2d6-1b0c9e8f7a65", "2b9f6c13-5e7a-4d80-b1c4-6a3e2d9f0b87"],
      graph_ids: ["gref-pre-algebra"],
      grouped_learning_objectives: [
        {
          group_id: "unit-3",
          learning_objectives: [{ learning_objective_id: "lref-one-step-eq" }, { learning_objective_id: "lref-two-step-eq", weight: 2 }],
        },
      ],
      confidence_levels: [10, 50, 90],
      get_overall_score: true,
      get_learning_objective_scores: true,
      learning_objective_coverage_requirement: 4,
    },
  });

const ScoresAtConfidence = z.array(z.object({ confidence_level: z.number().int(), predicted_score: z.number().min(0).max(1) }));
const GroupScore = z.object({ group_id: z.string(), scores: ScoresAtConfidence, group_learning_objective_coverage: z.number().min(0).max(1) });

const AccountScoresSchema = z.object({
  group_scores: z.array(GroupScore),
  grouped_scores: z.array(GroupScore).openapi({ description: "Deprecated alias of group_scores (identical)." }),
  learning_objective_scores: z
    .array(
      z.object({ learning_objective_id: z.string(), graph_id: z.string(), scores: ScoresAtConfidence, learning_objective_coverage: z.number().min(0).max(1) }),
    )
    .optional(),
  overall_score: ScoresAtConfidence.optional(),
  overall_learning_objective_coverage: z.number().min(0).max(1).optional(),
});

export const PredictedScoreResponse = z
  .object({
    code: z.literal(200),
    message: z.string(),
    error_id: z.string().uuid().openapi({ description: "Identifies this answer in the service's logs (spec 4.7 carries it on success too)." }),
    account_scores: z.record(z.string().uuid(), AccountScoresSchema),
  })
  .openapi("PredictedScoreResponse");

export type PredictedScoreRequest = z.infer<typeof PredictedScoreBody>;
