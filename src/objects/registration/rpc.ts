/** Types shared by the event routes (callers) and the RegistrationObject (RPC payloads). */
import type { Recommendation } from "../../policy";
import type { AuditedEvent } from "../../schemas/audit";
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
  /** xAPI: the statement this event came from, and a digest of its content (stored once per id; docs/xapi.md) */
  statement?: { id: string; fingerprint: string };
}

/** A goal id named by the request (focus or event goal_id) and where, for error details. */
export interface GoalRef {
  goalId: string;
  path: string;
}

export interface IngestRequest {
  registrationId: string;
  /** the registration's account and creation time (named by its projection messages) */
  accountId: string;
  registrationCreatedAt: number;
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
  events: AuditedEvent[];
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
  | { ok: false; status: 422 | 409; message: string; details: ErrorDetail[]; replayed: boolean }
  /** the registration was erased (the request raced its erasure): refused, nothing stored */
  | { ok: false; status: 404; message: string; details: ErrorDetail[]; replayed: boolean };

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
  /** when the goal was assigned to the registration (ms): max_work_on_goal counts the interactions since then (./work-on-goal.ts) */
  assignedAt?: number;
}

/** The goal and graph versions: what a goal's compiled form depends on. */
export const goalVersionKey = (g: GoalSpec) => `${g.id}:${g.version}:${g.graphUuid}@${g.graphVersion}`;

/** What a goal's computed status or recommendation depends on besides the learner state and the rates: its versions and its assignment. */
export const goalSpecKey = (g: GoalSpec) => `${goalVersionKey(g)}:${g.assignedAt ?? ""}`;

export interface RecommendRequest {
  goal: GoalSpec;
  continuedRecommendations: boolean;
  nowMs: number;
}

/** The policy's recommendation with the id it is known by (recommendation_id). */
export interface RecommendOutcome extends Recommendation {
  id: number;
}

/** The registration's graph at the version the caller read. */
export interface GraphRef {
  uuid: string;
  version: number;
}

/** A goal column of a metrics row: the goal, with its assignment to the registration (`spec.assignedAt`; absent: not assigned). */
export interface MetricGoal {
  spec: GoalSpec;
  /** the assignment's deadline (timing.end, or assignment + relative_deadline); null when none */
  deadlineMs: number | null;
}

export type MetricsRequest =
  | { metric: "proficiency"; graph: GraphRef; goals: MetricGoal[]; objectiveIds: string[]; nowMs: number }
  | { metric: "expected-score" | "readiness-forecast"; graph: GraphRef; goals: MetricGoal[]; nowMs: number }
  | { metric: "active-time"; firstDay: number; lastDay: number; utcOffsetMinutes: number };

/** A value of a metrics row (one per column), as src/schemas/metrics.ts describes them. */
export type MetricValue =
  | { proficiency: number; lower: number; upper: number; evidence: number }
  | { expected_score: number; lower: number; upper: number; status: "estimated" | "insufficient_data" }
  | { probability_ready_by_end: number | null; projected_completion: string | null }
  | { active_time_ms: number; time_spent_ms: number };
