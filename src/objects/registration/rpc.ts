/** Types shared by the event routes (callers) and the RegistrationObject (RPC payloads). */
import type { ErrorDetail } from "../../schemas/common";

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

/** A goal id named by the request (focus or event goal_id) and where, for error details. */
export interface GoalRef {
  goalId: string;
  path: string;
}

export interface IngestRequest {
  registrationId: string;
  /** the registration's learning instance: named goals must be live goals of it */
  learningInstanceId: string;
  graphUuid: string;
  graphVersion: number;
  /** events in chronological order (the API's batch order reversed) */
  events: EventInput[];
  /** a focus change applied before the events (batch goal_id, focus-events) */
  focusGoalId?: string;
  /** every goal id the request names, checked by the object after the Idempotency-Key lookup */
  goals: GoalRef[];
  ignoreInvalidModuleIds: boolean;
  idempotencyKey?: string;
  nowMs: number;
}

/** The operator audit of a registration's storage (docs/security.md "Operator diagnostics"). */
export interface AuditPage {
  event_count: number;
  events: { seq: number; kind: string; module: string | null; graph_version: number | null; occurred_at: number; body: unknown }[];
  /** the seq to pass as `after` for the next page; absent on the last page */
  next_after?: number;
}

export interface AuditState {
  event_count: number;
  /** the kept learner state equals the state replayed from the event log (canonical JSON) */
  state_matches_replay: boolean;
}

export type IngestOutcome =
  | { ok: true; stored: number; ignored: number; replayed: boolean }
  | { ok: false; status: 422; message: string; details: ErrorDetail[]; replayed: boolean };
