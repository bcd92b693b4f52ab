import type { GraphIndex } from "../../graphs/runtime-graph";
import type { LoggedEvent } from "./event-log";
import { applyLoggedEvents, MODEL_STATE_ID, type ModelState } from "./model-state-store";

/**
 * Retention of a registration's event log (the partner setting `event_retention_days`, docs/privacy.md):
 * the oldest events, those received before the horizon, leave the log once folded into the learner
 * state, and the object keeps the model state as it was after the last removed event (the snapshot).
 * A replay of the log (the rebuild after a recalibration, the operator audit `state_matches_replay`)
 * starts from the snapshot, so it still equals the state kept incrementally.
 */
export interface RetentionSnapshot {
  /** the last removed event */
  seq: number;
  /** the model state after it */
  state: ModelState;
  /** which parameters computed it (a rebuild after a recalibration starts from it all the same) */
  modelStateId: string;
  /** events removed so far */
  removed: number;
}

const SNAPSHOT = "retention_snapshot";
/** Rows replayed per read while the snapshot is computed (a long log is never read whole). */
const PAGE = 1000;

export function retentionSnapshot(kv: SyncKvStorage): RetentionSnapshot | undefined {
  return kv.get<RetentionSnapshot>(SNAPSHOT);
}

/** The state a replay of the log starts from: the snapshot's, or the initial one (undefined). */
export const replayStart = (kv: SyncKvStorage): ModelState | undefined => retentionSnapshot(kv)?.state;

/** The last seq of the log's prefix received before `cutoffMs` (undefined: nothing to remove). */
function lastSeqBefore(sql: SqlStorage, cutoffMs: number): number | undefined {
  const { first, last } = sql
    .exec<{ first: number | null; last: number | null }>(
      "SELECT (SELECT MIN(seq) FROM events WHERE received_at >= ?) AS first, (SELECT MAX(seq) FROM events) AS last",
      cutoffMs,
    )
    .one();
  if (last === null) return undefined;
  const cut = first === null ? last : first - 1;
  return cut > 0 ? cut : undefined;
}

/**
 * Removes the events received before `cutoffMs` and moves the snapshot past them; returns how many
 * were removed. The new snapshot is the old one (or the initial state) with the removed learner
 * events applied, exactly as a replay applies them. Events arriving meanwhile land after the cut and
 * stay; a concurrent pass that moved the snapshot first makes this one give up (0).
 */
export async function pruneLog(storage: DurableObjectStorage, cutoffMs: number, graphAt: (version: number) => Promise<GraphIndex>): Promise<number> {
  const { sql, kv } = storage;
  const cut = lastSeqBefore(sql, cutoffMs);
  const before = retentionSnapshot(kv);
  if (cut === undefined || cut <= (before?.seq ?? 0)) return 0;
  let state = before?.state;
  for (let after = before?.seq ?? 0; after < cut; ) {
    const rows = sql
      .exec<LoggedEvent>(
        "SELECT seq, kind, module, graph_version, occurred_at, body FROM events WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?",
        after,
        cut,
        PAGE,
      )
      .toArray();
    if (rows.length === 0) break;
    state = await applyLoggedEvents(
      state,
      rows.filter((r) => r.kind === "graded" || r.kind === "ungraded"),
      graphAt,
    );
    after = (rows.at(-1) as LoggedEvent).seq;
  }
  let removed = 0;
  storage.transactionSync(() => {
    if (retentionSnapshot(kv)?.seq !== before?.seq || !state) return;
    removed = sql.exec("DELETE FROM events WHERE seq <= ?", cut).rowsWritten;
    kv.put(SNAPSHOT, { seq: cut, state, modelStateId: MODEL_STATE_ID, removed: (before?.removed ?? 0) + removed } satisfies RetentionSnapshot);
  });
  return removed;
}
