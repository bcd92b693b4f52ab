import { and, eq, isNull } from "drizzle-orm";
import { inList } from "../db/bound-list";
import type { Db } from "../db/client";
import { goals as goalsTable } from "../db/schema";
import type { ErrorDetail } from "../schemas/common";

/**
 * The goal ids named that are not live goals of the learning instance, as error details (empty when
 * all are). Called by the RegistrationObject after its Idempotency-Key lookup, so a retry of a
 * stored request is answered before anything is checked against current data (docs/api-conventions.md "Events").
 */
export async function unknownGoals(db: Db, learningInstanceId: string, goals: readonly { goalId: string; path: string }[]): Promise<ErrorDetail[]> {
  if (goals.length === 0) return [];
  const ids = [...new Set(goals.map((g) => g.goalId.toLowerCase()))];
  const known = new Set<string>();
  const rows = await db
    .select({ id: goalsTable.id })
    .from(goalsTable)
    .where(and(inList(goalsTable.id, ids), eq(goalsTable.learningInstanceId, learningInstanceId), isNull(goalsTable.deletedAt)))
    .all();
  for (const r of rows) known.add(r.id);
  return goals
    .filter((g) => !known.has(g.goalId.toLowerCase()))
    .map(({ goalId, path }) => ({ path, message: `'${goalId}' is not a goal of the registration's learning instance` }));
}
