import type { Db } from "../db/client";

/**
 * The page of `learnerPage` (goal-specs.ts: the live learner registrations of an instance with at
 * least one of the goals assigned, in creation order) and their assignments of those goals, as
 * `assignmentsOf` gives them, in one D1 read (a class's status page, polled every few seconds, made
 * two: docs/performance.md, third pass); the instance tables that name their goals (status page,
 * learners to watch) use it. Asks for one registration more than the page to tell whether another
 * page follows. ?1 instance, ?2 goal ids (JSON), ?3 limit, ?4 offset.
 */
const PAGE_WITH_ASSIGNMENTS = `WITH page AS (
  SELECT r.id, r.created_at, r.rowid AS rid FROM registrations r
  WHERE r.learning_instance_id = ?1 AND r.type = 'learner' AND r.deleted_at IS NULL
    AND EXISTS (SELECT 1 FROM goal_assignments a WHERE a.registration_id = r.id AND a.goal_id IN (SELECT value FROM json_each(?2)))
  ORDER BY r.created_at, r.rowid LIMIT ?3 OFFSET ?4
)
SELECT page.id, a.goal_id, a.assigned_at FROM page
JOIN goal_assignments a ON a.registration_id = page.id AND a.goal_id IN (SELECT value FROM json_each(?2))
ORDER BY page.created_at, page.rid`;

export interface AssignedLearnerPage {
  ids: string[];
  more: boolean;
  /** registration id -> goal id -> assigned_at (ms) */
  assigned: Map<string, Map<string, number>>;
}

export async function assignedLearnerPage(db: Db, liId: string, goalIds: string[], offset: number, perPage: number): Promise<AssignedLearnerPage> {
  const rows = await db.$client
    .prepare(PAGE_WITH_ASSIGNMENTS)
    .bind(liId, JSON.stringify(goalIds), perPage + 1, offset)
    .raw<[string, string, number]>();
  const ids: string[] = [];
  const assigned = new Map<string, Map<string, number>>();
  for (const [registrationId, goalId, assignedAt] of rows) {
    let goals = assigned.get(registrationId);
    if (!goals) {
      goals = new Map();
      assigned.set(registrationId, goals);
      ids.push(registrationId);
    }
    goals.set(goalId, assignedAt);
  }
  const more = ids.length > perPage;
  if (more) assigned.delete(ids.pop() as string);
  return { ids, more, assigned };
}
