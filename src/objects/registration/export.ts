import type { LoggedBody } from "../../schemas/audit";
import { isErased, RegistrationErased } from "./erasure";
import { retentionSnapshot } from "./retention";

/** One stored event as the export hands it out: the event as received, without the model's internals. */
export interface ExportedEventRow {
  seq: number;
  kind: "graded" | "ungraded" | "recommendation-followed" | "focus";
  /** the module's partner label as resolved when the event was accepted (null for focus events) */
  module: string | null;
  graph_version: number | null;
  /** interaction_end_time / time_followed (focus: time received), ms */
  occurred_at: number;
  received_at: number;
  /** the fields the API took, as the API names them (module_id as sent, is_correct, duration, goal_id, ...) */
  body: Omit<LoggedBody, "item">;
}

export interface ExportPage {
  events: ExportedEventRow[];
  /** events the retention setting removed from the log so far (their effect on the state stays) */
  removed_by_retention: number;
  /** the seq to pass as `afterSeq` for the next page; absent on the last page */
  next_after?: number;
}

/** Events per page an export asks for: a page is a few hundred KB, so a 100,000-event log is never held whole. */
export const EXPORT_PAGE_EVENTS = 1000;

/** A page of the registration's stored events after `afterSeq`, oldest first, at most `limit` (src/services/export). */
export function exportPage(storage: DurableObjectStorage, afterSeq: number, limit: number): ExportPage {
  if (isErased(storage)) throw new RegistrationErased();
  const rows = storage.sql
    .exec<{
      seq: number;
      kind: ExportedEventRow["kind"];
      module: string | null;
      graph_version: number | null;
      occurred_at: number;
      received_at: number;
      body: string;
    }>("SELECT seq, kind, module, graph_version, occurred_at, received_at, body FROM events WHERE seq > ? ORDER BY seq LIMIT ?", afterSeq, limit)
    .toArray();
  const events = rows.map((r) => {
    const { item: _, ...body } = JSON.parse(r.body) as LoggedBody;
    return { ...r, body };
  });
  const last = rows.at(-1);
  const removed = retentionSnapshot(storage.kv)?.removed ?? 0;
  return { events, removed_by_retention: removed, ...(rows.length === limit && last ? { next_after: last.seq } : {}) };
}
