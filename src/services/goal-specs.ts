import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { type GoalRow, goalAssignments, goals } from "../db/schema";
import { unprocessable } from "../http/errors";
import type { GoalSpec } from "../objects/registration/rpc";
import type { ErrorDetail } from "../schemas/common";

/** A goal as its registrations' Durable Objects need it, at the graph version the caller read. */
export function goalSpecOf(goal: GoalRow, graphUuid: string, graphVersion: number): GoalSpec {
  return { id: goal.id, version: goal.updatedAt, body: goal.body, graphUuid, graphVersion };
}

/**
 * The live goals of learning instance `liId` named in a request body, in request order (duplicates
 * kept once); an id that names no such goal is a 422 naming its path (`body.goal_ids[i]`).
 */
export async function requestedGoals(db: Db, liId: string, goalIds: string[]): Promise<GoalRow[]> {
  const ids = [...new Set(goalIds.map((id) => id.toLowerCase()))];
  const rows = await db
    .select()
    .from(goals)
    .where(and(sql`${goals.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`, eq(goals.learningInstanceId, liId), isNull(goals.deletedAt)))
    .all();
  const byId = new Map(rows.map((g) => [g.id, g]));
  const details: ErrorDetail[] = [];
  goalIds.forEach((id, i) => {
    if (!byId.has(id.toLowerCase())) details.push({ path: `body.goal_ids[${i}]`, message: `'${id}' is not a scoped goal of the learning instance` });
  });
  if (details.length) throw unprocessable("Unknown goal id(s): goal_ids must name scoped goals of the learning instance.", details);
  return ids.map((id) => byId.get(id) as GoalRow);
}

/** Which of the goals each registration has assigned: registration id -> goal ids. */
export async function assignmentsOf(db: Db, registrationIds: string[], goalIds: string[]): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  if (!registrationIds.length || !goalIds.length) return out;
  const rows = await db
    .select({ goalId: goalAssignments.goalId, registrationId: goalAssignments.registrationId })
    .from(goalAssignments)
    .where(
      and(
        sql`${goalAssignments.registrationId} IN (SELECT value FROM json_each(${JSON.stringify(registrationIds)}))`,
        inArray(goalAssignments.goalId, goalIds),
      ),
    )
    .all();
  for (const r of rows) {
    let set = out.get(r.registrationId);
    if (!set) {
      set = new Set();
      out.set(r.registrationId, set);
    }
    set.add(r.goalId);
  }
  return out;
}
