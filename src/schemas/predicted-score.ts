import { z } from "@hono/zod-openapi";
import { uuid } from "./common";
import { limitedList, limitIssue } from "./limit-checks";
import {
  PREDICTED_SCORE_ACCOUNT_OBJECTIVES_MAX,
  PREDICTED_SCORE_ACCOUNTS_MAX,
  PREDICTED_SCORE_GROUP_ENTRIES_MAX,
  PREDICTED_SCORE_GROUPS_MAX,
  PREDICTED_SCORE_LEVELS_MAX,
  PREDICTED_SCORE_OBJECTIVES_MAX,
  PREDICTED_SCORE_SCORES_MAX,
} from "./limits";
import { identifierText, ObjectiveId } from "./text";

const Group = z.object({
  group_id: identifierText.min(1).max(200).openapi({ description: "A unique label of the group." }),
  learning_objectives: limitedList(
    z.object({
      learning_objective_id: ObjectiveId,
      weight: z.number().int().min(1).max(1_000_000).optional().openapi({ description: "Positive integer, default 1." }),
    }),
    PREDICTED_SCORE_GROUP_ENTRIES_MAX,
    "objectives in one group",
  ).min(1),
});

/** Distinct objectives over every group (an objective in several groups counts once). */
export function distinctObjectives(groups: readonly { learning_objectives: readonly { learning_objective_id: string }[] }[]): number {
  const ids = new Set<string>();
  for (const g of groups) for (const o of g.learning_objectives) ids.add(o.learning_objective_id);
  return ids.size;
}

const LIMITS_TEXT =
  `Limits (422 beyond, naming the limit; page by accounts): at most ${PREDICTED_SCORE_ACCOUNTS_MAX} accounts, ${PREDICTED_SCORE_GROUPS_MAX} groups, ` +
  `${PREDICTED_SCORE_OBJECTIVES_MAX} distinct objectives, ${PREDICTED_SCORE_LEVELS_MAX} confidence levels; accounts × distinct objectives ≤ ` +
  `${PREDICTED_SCORE_ACCOUNT_OBJECTIVES_MAX.toLocaleString("en-US")}; accounts × (groups + distinct objectives + 1) × levels ≤ ` +
  `${PREDICTED_SCORE_SCORES_MAX.toLocaleString("en-US")}; an answer of at most 10 MB.`;

export const PredictedScoreBody = z
  .object({
    account_ids: limitedList(uuid, PREDICTED_SCORE_ACCOUNTS_MAX, "account_ids").min(1),
    graph_ids: z
      .array(identifierText.min(1).max(200))
      .min(1, { message: "exactly one graph id (only one graph per request is supported)" })
      .max(1, { message: "exactly one graph id (only one graph per request is supported)" })
      .openapi({ description: "The graph: its gref- label or uuid. Only one graph id is supported." }),
    grouped_learning_objectives: limitedList(Group, PREDICTED_SCORE_GROUPS_MAX, "groups")
      .min(1)
      .superRefine((groups, ctx) => {
        const seen = new Set<string>();
        groups.forEach((g, i) => {
          if (seen.has(g.group_id)) ctx.addIssue({ code: "custom", message: `duplicate group_id '${g.group_id}'`, path: [i, "group_id"] });
          seen.add(g.group_id);
        });
        const distinct = distinctObjectives(groups);
        if (distinct > PREDICTED_SCORE_OBJECTIVES_MAX)
          ctx.addIssue(limitIssue(`at most ${PREDICTED_SCORE_OBJECTIVES_MAX} distinct objectives over all groups; this request has ${distinct}`));
      }),
    confidence_levels: limitedList(z.number().int().min(0).max(100), PREDICTED_SCORE_LEVELS_MAX, "confidence levels")
      .min(1)
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
  .superRefine((body, ctx) => {
    const accounts = new Set(body.account_ids.map((id) => id.toLowerCase())).size;
    const objectives = distinctObjectives(body.grouped_learning_objectives);
    const levels = body.confidence_levels.length;
    if (accounts * objectives > PREDICTED_SCORE_ACCOUNT_OBJECTIVES_MAX) {
      ctx.addIssue(
        limitIssue(
          `accounts × distinct objectives must be at most ${PREDICTED_SCORE_ACCOUNT_OBJECTIVES_MAX}; this request has ${accounts} × ${objectives} = ${accounts * objectives} (send fewer accounts per request)`,
        ),
      );
    }
    const scores = accounts * (body.grouped_learning_objectives.length + objectives + 1) * levels;
    if (scores > PREDICTED_SCORE_SCORES_MAX) {
      ctx.addIssue(
        limitIssue(
          `accounts × (groups + distinct objectives + 1) × confidence levels must be at most ${PREDICTED_SCORE_SCORES_MAX}; this request has ${accounts} × (${body.grouped_learning_objectives.length} + ${objectives} + 1) × ${levels} = ${scores} (send fewer accounts per request)`,
        ),
      );
    }
  })
  .openapi("PredictedScoreRequest", {
    description: LIMITS_TEXT,
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
