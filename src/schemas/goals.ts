import { z } from "@hono/zod-openapi";
import { ADAPTIVE_BEHAVIORS, ASSIGN_TO, COMPLETION_BEHAVIORS, REGISTRATION_TYPES } from "../domain/vocabulary";
import { REMEDIATION_DEPTHS } from "../graphs/resolve-goal-scope";
import { parseIsoDuration } from "../lib/iso-duration";
import { isoDateTime, uuid } from "./common";
import { limitIssue } from "./limit-checks";
import { ASSIGNMENT_BATCH_MAX, GOAL_SCOPE_IDS_MAX, GOAL_TARGETS_MAX, GOAL_TOPICS_MAX } from "./limits";
import { freeText, identifierMatching, identifierText } from "./text";

const ObjectiveOrModuleId = identifierMatching(
  (char) => `^(lref|mref)-${char("\\s")}+$`,
  "must be a learning objective id (lref-...) or a module id (mref-...), without whitespace or the characters identifiers refuse (control, formatting, separators, variation selectors)",
).max(200);

const TargetIds = z.array(ObjectiveOrModuleId).min(1).max(GOAL_TARGETS_MAX);
const CompletionBehavior = z.enum(COMPLETION_BEHAVIORS);
const AdaptiveBehavior = z.enum(ADAPTIVE_BEHAVIORS);
const RemediationDepth = z.enum(REMEDIATION_DEPTHS);
const AssignTo = z.enum(ASSIGN_TO);
const Name = freeText.trim().min(1).max(200).openapi({ description: "No personal data: a name with an e-mail address is refused (422)." });

const Targets = z.object({
  include: TargetIds.openapi({ description: "All lref- (objective targets) or all mref- (module targets)." }),
  completion_behavior: CompletionBehavior.optional().openapi({ description: "Default `all`." }),
});

const Topic = z.object({
  id: identifierText.trim().min(1).max(200),
  name: Name.optional(),
  targets: Targets,
});

const Duration = z
  .string()
  .max(100)
  .refine((v) => parseIsoDuration(v) !== undefined, { message: "must be a positive ISO 8601 duration such as P2W, P10D or PT36H" })
  .openapi({
    format: "duration",
    example: "P2W",
    description: "A positive ISO 8601 duration with whole components: weeks alone (P2W) or years to seconds (P1Y2M3DT4H5M6S), each at most 100000.",
  });

type Issue = { code: "custom"; message: string; path: (string | number)[]; input?: unknown; params?: Record<string, unknown> };

function kindOf(id: string) {
  return id.startsWith("mref-") ? "mref-" : "lref-";
}

/** Exactly one of targets and topics; one target kind across the goal; no duplicate targets or topic ids. */
function checkTargets(body: { targets?: { include: string[] }; topics?: { id: string; targets: { include: string[] } }[] }, addIssue: (i: Issue) => void) {
  if ((body.targets === undefined) === (body.topics === undefined)) {
    addIssue({ code: "custom", message: "send exactly one of `targets` and `topics`", path: body.targets ? ["topics"] : ["targets"] });
    return;
  }
  const lists: { ids: string[]; path: (string | number)[] }[] = body.targets
    ? [{ ids: body.targets.include, path: ["targets", "include"] }]
    : (body.topics ?? []).map((t, i) => ({ ids: t.targets.include, path: ["topics", i, "targets", "include"] }));
  const total = lists.reduce((n, l) => n + l.ids.length, 0);
  if (total > GOAL_TARGETS_MAX) {
    addIssue(limitIssue(`at most ${GOAL_TARGETS_MAX} targets per goal over all topics; this goal has ${total}`, ["topics"]));
    return;
  }
  const firstKind = lists[0]?.ids[0] !== undefined ? kindOf(lists[0].ids[0]) : undefined;
  const seen = new Set<string>();
  for (const { ids, path } of lists) {
    ids.forEach((id, i) => {
      if (kindOf(id) !== firstKind) {
        addIssue({
          code: "custom",
          message: `targets must be all lref- or all mref- ids; '${id}' differs from the first target's kind (${firstKind})`,
          path: [...path, i],
        });
      }
      if (seen.has(id)) addIssue({ code: "custom", message: `duplicate target '${id}'`, path: [...path, i] });
      seen.add(id);
    });
  }
  const topicIds = new Set<string>();
  body.topics?.forEach((t, i) => {
    if (topicIds.has(t.id)) addIssue({ code: "custom", message: `duplicate topic id '${t.id}'`, path: ["topics", i, "id"] });
    topicIds.add(t.id);
  });
}

export const GoalBodySchema = z
  .object({
    name: Name,
    adaptive_behavior: AdaptiveBehavior.openapi({ description: "Immutable after creation (422 on change)." }),
    targets: Targets.optional().openapi({ description: "Exactly one of `targets` and `topics`." }),
    topics: z.array(Topic).min(1).max(GOAL_TOPICS_MAX).optional(),
    scope: z
      .object({
        remediation_depth: RemediationDepth.optional().openapi({
          description: "Prerequisite levels below the targets in scope: `one` = direct prerequisites (default), `maximum` = all.",
        }),
        include: z.array(ObjectiveOrModuleId).max(GOAL_SCOPE_IDS_MAX).optional(),
        exclude: z.array(ObjectiveOrModuleId).max(GOAL_SCOPE_IDS_MAX).optional(),
      })
      .optional(),
    completion_criteria: z
      .object({
        min_predicted_mastery: z.number().min(0).max(1).optional().openapi({ description: "Default 0.8." }),
        min_work_per_target: z.number().int().min(0).max(10_000).optional(),
        max_work_on_goal: z.number().int().min(1).max(100_000).optional(),
      })
      .optional(),
    timing: z
      .object({
        end: isoDateTime.optional().openapi({ description: "At most two years from now (422)." }),
        relative_deadline: Duration.optional(),
      })
      .optional(),
    config: z
      .object({
        analytics_enabled: z.boolean().optional().openapi({ description: "Default true." }),
        assign_to: AssignTo.optional().openapi({ description: "Applied at creation: assigns the instance's registrations of those types. Default `none`." }),
      })
      .optional(),
  })
  .superRefine((body, ctx) => checkTargets(body, (issue) => ctx.addIssue(issue)))
  .openapi("ScopedGoalRequest", {
    example: {
      name: "Unit 3: solving equations",
      adaptive_behavior: "practice",
      targets: { include: ["lref-two-step-eq"], completion_behavior: "all" },
      scope: { remediation_depth: "two", include: [], exclude: [] },
      completion_criteria: { min_predicted_mastery: 0.8, min_work_per_target: 3, max_work_on_goal: 60 },
      timing: { relative_deadline: "P2W" },
      config: { analytics_enabled: true, assign_to: "learners" },
    },
  });

const TargetsOut = z.object({ include: z.array(z.string()), completion_behavior: CompletionBehavior });

/** A goal as stored and echoed: the request with the decided defaults filled (services/goals.ts `normalizeGoal`). */
export const StoredGoalBodySchema = z.object({
  name: z.string(),
  adaptive_behavior: AdaptiveBehavior,
  targets: TargetsOut.optional(),
  topics: z.array(z.object({ id: z.string(), name: z.string().optional(), targets: TargetsOut })).optional(),
  scope: z.object({
    remediation_depth: RemediationDepth,
    include: z.array(z.string()),
    exclude: z.array(z.string()),
  }),
  completion_criteria: z.object({
    min_predicted_mastery: z.number(),
    min_work_per_target: z.number().int().optional(),
    max_work_on_goal: z.number().int().optional(),
  }),
  timing: z.object({ end: z.string().optional(), relative_deadline: z.string().optional() }).optional(),
  config: z.object({ analytics_enabled: z.boolean(), assign_to: AssignTo }),
});

export const ResolvedScopeSchema = z
  .object({
    graph_id: z.string().uuid(),
    graph_version: z.number().int(),
    target_learning_objective_ids: z.array(z.string()),
    learning_objective_ids: z.array(z.string()),
    module_ids: z.array(z.string()),
  })
  .openapi({ description: "Only with `?resolved_scope=true` on GET: the scope resolved against the graph (in-scope objectives and recommendable atoms)." });

export const GoalSchema = StoredGoalBodySchema.extend({
  id: z.string().uuid(),
  learning_instance_id: z.string().uuid(),
  created_at: z.string(),
  last_modified: z.string(),
  resolved_scope: ResolvedScopeSchema.optional(),
}).openapi("ScopedGoal");

export const AssignmentSchema = z.object({ goal_id: z.string().uuid(), registration_id: z.string().uuid() }).openapi("GoalAssignment");

export const BATCH_ACTIONS = ["assign", "unassign"] as const;
const BatchAction = z.enum(BATCH_ACTIONS);

export const BatchAssignmentBody = z
  .object({
    action: BatchAction,
    registration_ids: z.array(uuid).min(1).max(ASSIGNMENT_BATCH_MAX).optional(),
    registration_type: z.enum(REGISTRATION_TYPES).optional(),
  })
  .superRefine((body, ctx) => {
    if ((body.registration_ids === undefined) === (body.registration_type === undefined)) {
      ctx.addIssue({ code: "custom", message: "send exactly one of `registration_ids` and `registration_type`", path: ["registration_ids"] });
    }
  })
  .openapi("GoalAssignmentBatch", {
    example: { action: "assign", registration_ids: ["7d1e5a40-8c3b-4e9f-a2d6-1b0c9e8f7a65", "2b9f6c13-5e7a-4d80-b1c4-6a3e2d9f0b87"] },
  });

export const BatchAssignmentResult = z
  .object({
    action: BatchAction,
    success: z.object({ registration_ids: z.array(z.string()) }),
    failure: z.array(z.object({ registration_ids: z.array(z.string()), code: z.union([z.literal(404), z.literal(422)]), message: z.string() })),
  })
  .openapi("GoalAssignmentBatchResult");

/** A goal request after structural validation; defaults not yet filled. */
export type GoalInput = z.infer<typeof GoalBodySchema>;
/** A goal as stored and echoed (defaults filled). */
export type GoalBody = z.infer<typeof StoredGoalBodySchema>;
export type GoalView = Omit<z.infer<typeof GoalSchema>, "resolved_scope">;
export type ResolvedScopeView = z.infer<typeof ResolvedScopeSchema>;
export type BatchAction = (typeof BATCH_ACTIONS)[number];
export type BatchAssignmentOutcome = z.infer<typeof BatchAssignmentResult>;
