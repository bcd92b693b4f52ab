import type { Db } from "../db/client";
import type { GoalRow, RegistrationRow } from "../db/schema";
import type { Env } from "../env";
import { unprocessable } from "../errors";
import type { GoalSpec } from "../objects/registration/rpc";
import { CLASS_STATUS_MAX_AGE_MS } from "../objects/registration/status-memo";
import type { GoalBody } from "../schemas/goals";
import { PAGE_MAX_BYTES } from "../schemas/limits";
import type { StatusAndProgress } from "../schemas/status-and-progress";
import { assignedLearnerPage } from "./assigned-learner-page";
import { classRowStatuses } from "./class-status-memo";
import { assignmentsOf, goalSpecOf, requestedGoals } from "./goal-specs";
import { registrationObject } from "./registrations";

export interface StatusRow {
  registration_id: string;
  status_and_progress: StatusAndProgress[];
}

/** The cell of a goal not assigned to the registration (docs/api-conventions.md "Lists, tables and metrics bodies"). */
export function unassignedCell(goal: GoalRow): StatusAndProgress {
  const body: GoalBody = goal.body;
  const targetIds = body.targets?.include ?? (body.topics ?? []).flatMap((t) => t.targets.include);
  const cell: StatusAndProgress = {
    goal_id: goal.id,
    status: "no_work",
    progress: 0,
    work_remaining: -1,
    targets: targetIds.map((id) =>
      id.startsWith("mref-") ? { module_id: id, status: "no_work", progress: 0 } : { target_id: id, status: "no_work", progress: 0 },
    ),
  };
  if (body.topics) cell.topic_work_remaining = body.topics.map((t) => ({ topic_id: t.id, min_work_remaining: -1, average_work_remaining: -1 }));
  return cell;
}

/**
 * One table row: the registration's Durable Object computes the assigned goals' status (the same
 * rules as its recommendations), unassigned goals get the no_work cell. One object call per row
 * (none when a class page's row was received moments ago). `maxAgeMs`: how old a status computed
 * earlier for the same learner state may be (class pages only).
 */
async function rowFor(
  env: Env,
  registrationId: string,
  columns: GoalRow[],
  specs: Map<string, GoalSpec>,
  assigned: Map<string, number> | undefined,
  maxAgeMs = 0,
): Promise<StatusRow> {
  const mine = columns.filter((g) => assigned?.has(g.id));
  const goals = mine.map((g): GoalSpec => ({ ...(specs.get(g.id) as GoalSpec), assignedAt: assigned?.get(g.id) as number }));
  const nowMs = Date.now();
  const call = () => registrationObject(env, registrationId).statuses(goals, nowMs, maxAgeMs);
  // A class page (maxAgeMs > 0) may answer the row it received a few seconds ago (./class-status-memo.ts).
  const computed = mine.length === 0 ? [] : maxAgeMs > 0 ? await classRowStatuses(registrationId, goals, nowMs, call) : await call();
  const byGoal = new Map(mine.map((g, i) => [g.id, computed[i]]));
  return {
    registration_id: registrationId,
    status_and_progress: columns.map((g) => {
      const s = byGoal.get(g.id);
      return s ? { goal_id: g.id, ...s } : unassignedCell(g);
    }),
  };
}

const specsOf = (columns: GoalRow[], graphUuid: string, graphVersion: number) => new Map(columns.map((g) => [g.id, goalSpecOf(g, graphUuid, graphVersion)]));

const utf8 = new TextEncoder();
const jsonBytes = (s: string) => utf8.encode(JSON.stringify(s)).length;

/**
 * An upper bound of one row's size in the answer (bytes): per goal its cell, each target's entry
 * and each topic's (every number at its longest JSON form). A goal may have 2,000 targets, so rows
 * of large goals are big: a page holds as many as fit in PAGE_MAX_BYTES.
 */
export function statusRowBytes(columns: readonly GoalRow[]): number {
  let bytes = 80;
  for (const g of columns) {
    const body: GoalBody = g.body;
    bytes += 170;
    for (const id of body.targets?.include ?? (body.topics ?? []).flatMap((t) => t.targets.include)) bytes += 75 + jsonBytes(id);
    for (const t of body.topics ?? []) bytes += 75 + jsonBytes(t.id);
  }
  return bytes;
}

/** 422 naming the limit when one row of these goals could not fit in an answer. */
function checkRowFits(rowBytes: number): void {
  if (rowBytes <= PAGE_MAX_BYTES) return;
  throw unprocessable(
    `One row of these goals could reach ${(rowBytes / 1e6).toFixed(1)} MB, over the ${PAGE_MAX_BYTES / 1e6} MB a page holds: ask for fewer goals.`,
    [{ path: "body.goal_ids", message: `the goals' targets must fit one row in ${PAGE_MAX_BYTES / 1e6} MB: ask for fewer goals per request` }],
  );
}

/** POST /v0/registrations/{id}/metrics/status-and-progress: one row. */
export async function registrationStatus(
  env: Env,
  db: Db,
  registration: RegistrationRow,
  graph: { uuid: string; version: number },
  goalIds: string[],
): Promise<{ columns: GoalRow[]; row: StatusRow }> {
  const columns = await requestedGoals(db, registration.learningInstanceId, goalIds);
  checkRowFits(statusRowBytes(columns));
  const assigned = await assignmentsOf(
    db,
    [registration.id],
    columns.map((g) => g.id),
  );
  return { columns, row: await rowFor(env, registration.id, columns, specsOf(columns, graph.uuid, graph.version), assigned.get(registration.id)) };
}

/**
 * POST /v0/learning-instances/{id}/metrics/status-and-progress: the learner registrations with at
 * least one of the goals assigned, in creation order, one page (at most `perPage` rows, fewer when the
 * goals' rows are large: see statusRowBytes). The page's objects are called in
 * parallel (a page of 100 is 100 concurrent calls, not 100 sequential round trips; docs/recommendation.md
 * explains why this beats a D1 projection here).
 */
export async function instanceStatusPage(
  env: Env,
  db: Db,
  liId: string,
  graph: { uuid: string; version: number },
  goalIds: string[],
  offset: number,
  perPage: number,
): Promise<{ columns: GoalRow[]; rows: StatusRow[]; more: boolean }> {
  const columns = await requestedGoals(db, liId, goalIds);
  const rowBytes = statusRowBytes(columns);
  checkRowFits(rowBytes);
  // Large goals: fewer rows than asked, so the page stays under PAGE_MAX_BYTES (`next` follows).
  const rowsThatFit = Math.max(1, Math.min(perPage, Math.floor(PAGE_MAX_BYTES / rowBytes)));
  const {
    ids: regIds,
    more,
    assigned,
  } = await assignedLearnerPage(
    db,
    liId,
    columns.map((g) => g.id),
    offset,
    rowsThatFit,
  );
  const specs = specsOf(columns, graph.uuid, graph.version);
  // A class-level read (docs/api-conventions.md "Freshness"): a learner's status may be a few seconds old, never behind its events.
  const rows = await Promise.all(regIds.map((id) => rowFor(env, id, columns, specs, assigned.get(id), CLASS_STATUS_MAX_AGE_MS)));
  return { columns, rows, more };
}
