import type { ActivityEvent } from "../../analytics";
import type { GraphIndex } from "../../graphs/runtime-graph";
import { findModule } from "../../graphs/runtime-graph";
import type { ItemEntry, LearnerEvent } from "../../model";
import type { LoggedBody } from "../../schemas/audit";
import type { AuditPage, EventInput } from "./rpc";

/** A row of the append-only `events` table that the learner model replays (graded and ungraded). */
export interface LoggedEvent extends Record<string, SqlStorageValue> {
  seq: number;
  kind: string;
  module: string | null;
  graph_version: number | null;
  occurred_at: number;
  body: string;
}

/**
 * The registration's append-only event log in its Durable Object's SQLite (schema in ./schema.ts).
 * Writes happen inside the caller's transaction.
 */
export class EventLog {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  appendFocus(goalId: string, nowMs: number): void {
    this.#sql.exec(
      "INSERT INTO events (kind, module, graph_version, occurred_at, received_at, body) VALUES ('focus', NULL, NULL, ?, ?, ?)",
      nowMs,
      nowMs,
      JSON.stringify({ goal_id: goalId }),
    );
  }

  /**
   * Appends a request's events in one statement (a batch of 50 was 50 statement calls, the largest
   * part of its transaction: docs/performance.md, third pass), in order: each row gets the next seq.
   */
  appendAll(events: { input: EventInput; moduleLabel: string; body: LoggedBody }[], graphVersion: number, receivedAt: number): void {
    if (events.length === 0) return;
    const rows = events.map((e) => [e.input.kind, e.moduleLabel, graphVersion, e.input.occurredAt, receivedAt, JSON.stringify(e.body)]);
    this.#sql.exec(
      `INSERT INTO events (kind, module, graph_version, occurred_at, received_at, body)
       SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5 FROM json_each(?) ORDER BY key`,
      JSON.stringify(rows),
    );
  }

  /** The graded and ungraded events in the order they were applied. */
  learnerEvents(): LoggedEvent[] {
    return this.#sql
      .exec<LoggedEvent>("SELECT seq, kind, module, graph_version, occurred_at, body FROM events WHERE kind IN ('graded', 'ungraded') ORDER BY seq")
      .toArray();
  }

  /** Every graded and ungraded event as an interaction for the activity summary (its end time and reported duration). */
  interactions(): ActivityEvent[] {
    return this.learnerEvents().map((row) => {
      const body = JSON.parse(row.body) as LoggedBody;
      return { endMs: row.occurred_at, durationMs: body.duration, graded: row.kind === "graded" };
    });
  }

  /** The module (label) of every graded and ungraded event that ended at or after `sinceMs`. */
  modulesSince(sinceMs: number): string[] {
    return this.#sql
      .exec<{ module: string }>("SELECT module FROM events WHERE kind IN ('graded', 'ungraded') AND occurred_at >= ?", sinceMs)
      .toArray()
      .map((r) => r.module);
  }

  count(): number {
    return this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM events").one().n;
  }

  /** The operator audit's page of stored events (docs/security.md "Operator diagnostics"). */
  auditPage(afterSeq: number, limit: number): AuditPage {
    const rows = this.page(afterSeq, limit);
    const events = rows.map((r) => ({
      seq: r.seq,
      kind: r.kind,
      module: r.module,
      graph_version: r.graph_version,
      occurred_at: r.occurred_at,
      body: JSON.parse(r.body) as LoggedBody,
    }));
    const last = rows.at(-1);
    return { event_count: this.count(), events, ...(rows.length === limit && last ? { next_after: last.seq } : {}) };
  }

  /** Every stored event after `afterSeq` (all kinds, focus included), oldest first, at most `limit`. */
  page(afterSeq: number, limit: number): LoggedEvent[] {
    return this.#sql
      .exec<LoggedEvent>("SELECT seq, kind, module, graph_version, occurred_at, body FROM events WHERE seq > ? ORDER BY seq LIMIT ?", afterSeq, limit)
      .toArray();
  }
}

/** The stored body of an accepted event (the fields the API took, as the API names them). */
export function loggedBody(input: EventInput): LoggedBody {
  const body: LoggedBody = { module_id: input.moduleId };
  if (input.correct !== undefined) body.is_correct = input.correct;
  if (input.durationMs !== undefined) body.duration = input.durationMs;
  if (input.goalId !== undefined) body.goal_id = input.goalId;
  if (input.instanceHash !== undefined) body.instance_hash = input.instanceHash;
  if (input.recommendationId !== undefined) body.recommendation_id = input.recommendationId;
  if (input.statement !== undefined) body.statement_id = input.statement.id;
  return body;
}

/** The objectives (`lref-` labels) a module of the graph works on, as its learner-model events carry them. */
export function moduleObjectiveLabels(graph: GraphIndex, module: number): string[] {
  return (graph.graph.modules[module]?.objectives ?? []).map((o) => graph.graph.objectives[o] as string);
}

/** The learner-model event of a graded or ungraded answer on module `module` of the graph (undefined for other kinds). */
export function learnerEventOf(graph: GraphIndex, module: number, kind: string, correct: boolean | undefined, timeMs: number): LearnerEvent | undefined {
  const m = graph.graph.modules[module];
  if (!m) return undefined;
  const objectives = moduleObjectiveLabels(graph, module);
  if (kind === "graded") return { kind: "graded", itemKey: m.label, objectives, correct: correct === true, timeMs };
  if (kind === "ungraded") return { kind: "ungraded", itemKey: m.label, objectives, timeMs };
  return undefined;
}

/** A logged row as the learner-model event it was applied as, with the item parameters then in force. */
export function loggedLearnerEvent(graph: GraphIndex, row: LoggedEvent): { event: LearnerEvent; item?: ItemEntry } | undefined {
  const module = row.module ? findModule(graph, row.module) : undefined;
  if (module === undefined) return undefined;
  const body = JSON.parse(row.body) as LoggedBody;
  const event = learnerEventOf(graph, module, row.kind, body.is_correct, row.occurred_at);
  return event && { event, item: body.item };
}
