/** Types shared by the event routes (callers) and the RegistrationObject (RPC payloads). */
import type { Recommendation } from "../../policy";
import type { ErrorDetail } from "../../schemas/common";
import type { GoalBody } from "../../schemas/goals";

export type EventKind = "graded" | "ungraded" | "recommendation-followed";

/** One student event as accepted by the API, times already parsed to ms. */
export interface EventInput {
  kind: EventKind;
  /** module uuid or mref label as sent */
  moduleId: string;
  /** interaction_end_time (graded/ungraded) or time_followed (recommendation-followed), ms */
  occurredAt: number;
  /** request path of the module id, for error details (e.g. body.events[3].module_id) */
  path: string;
  correct?: boolean;
  durationMs?: number;
  goalId?: string;
  instanceHash?: string;
  recommendationId?: number;
}

export interface IngestRequest {
  registrationId: string;
  graphUuid: string;
  graphVersion: number;
  /** events in chronological order (the API's batch order reversed) */
  events: EventInput[];
  /** a focus change applied before the events (batch goal_id, focus-events) */
  focusGoalId?: string;
  ignoreInvalidModuleIds: boolean;
  idempotencyKey?: string;
  nowMs: number;
}

export type IngestOutcome =
  | { ok: true; stored: number; ignored: number; replayed: boolean }
  | { ok: false; status: 422; message: string; details: ErrorDetail[]; replayed: boolean };

/**
 * A goal as the RegistrationObject needs it: its stored body, and the graph version to resolve its
 * scope against (the latest: the object resolves and compiles the scope once per goal and graph
 * version, so no scope travels with a request). `version` changes whenever the goal is updated.
 */
export interface GoalSpec {
  id: string;
  version: number;
  body: GoalBody;
  graphUuid: string;
  graphVersion: number;
}

export interface RecommendRequest {
  goal: GoalSpec;
  continuedRecommendations: boolean;
  nowMs: number;
}

/** The policy's recommendation with the id it is known by (recommendation_id). */
export interface RecommendOutcome extends Recommendation {
  id: number;
}
