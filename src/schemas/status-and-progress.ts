import { z } from "@hono/zod-openapi";
import { GOAL_ID_EXAMPLE as GOAL_EXAMPLE, goalIdList } from "./common";
import { STATUS_PAGE_MAX, STATUS_REQUEST_GOALS_MAX } from "./limits";

export const GOAL_STATUSES = ["complete", "complete_max_work", "in_progress", "struggling", "no_work"] as const;
export const TARGET_STATUSES = ["complete", "in_progress", "struggling", "no_work"] as const;

const WorkRemaining = z.number().int().min(-1).max(30);

export const StatusAndProgressSchema = z
  .object({
    goal_id: z.string().uuid(),
    status: z.enum(GOAL_STATUSES),
    progress: z.number().min(0).max(1).openapi({ description: "Share of the way to the goal's completion criteria (docs/recommendation.md)." }),
    work_remaining: WorkRemaining.openapi({
      description: "Expected further assessing items to meet the completion criteria, 0 to 30; -1 when the model cannot say.",
    }),
    targets: z.array(
      z.object({
        target_id: z.string().optional().openapi({ description: "Objective target (goals with lref- targets)." }),
        module_id: z.string().optional().openapi({ description: "Module target (goals with mref- targets)." }),
        status: z.enum(TARGET_STATUSES),
        progress: z.number().min(0).max(1),
      }),
    ),
    topic_work_remaining: z
      .array(z.object({ topic_id: z.string(), min_work_remaining: z.literal(-1), average_work_remaining: WorkRemaining }))
      .optional()
      .openapi({ description: "One per topic; absent when the goal has no topics." }),
  })
  .openapi("StatusAndProgress");

const GoalIds = goalIdList(STATUS_REQUEST_GOALS_MAX).openapi({ description: "Scoped goals of the learning instance." });

export const RegistrationStatusBody = z
  .object({ goal_ids: GoalIds })
  .openapi("RegistrationStatusAndProgressRequest", { example: { goal_ids: [GOAL_EXAMPLE] } });

export const InstanceStatusBody = z
  .object({
    goal_ids: GoalIds,
    registration_offset: z.number().int().min(0).default(0).openapi({ description: "Default 0: take it from next.registration_offset." }),
    registrations_per_page: z.number().int().min(1).max(STATUS_PAGE_MAX).default(STATUS_PAGE_MAX).openapi({ description: "Default and maximum 100." }),
  })
  .openapi("InstanceStatusAndProgressRequest", { example: { goal_ids: [GOAL_EXAMPLE], registration_offset: 0, registrations_per_page: STATUS_PAGE_MAX } });

const Row = z.object({ registration_id: z.string().uuid(), status_and_progress: z.array(StatusAndProgressSchema) });

export const StatusTableSchema = z
  .object({
    query: InstanceStatusBody,
    column_headers: z.array(z.string().uuid()),
    data: z.array(Row),
    next: z
      .object({ registration_offset: z.number().int(), registrations_per_page: z.number().int() })
      .optional()
      .openapi({ description: "Present only when more pages remain." }),
  })
  .openapi("StatusAndProgressTable");

export const RegistrationStatusTableSchema = z
  .object({ query: RegistrationStatusBody, column_headers: z.array(z.string().uuid()), data: z.array(Row) })
  .openapi("RegistrationStatusAndProgressTable");

export type StatusAndProgress = z.infer<typeof StatusAndProgressSchema>;
