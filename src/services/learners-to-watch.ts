import { GROUP_REASONS, groupWatchFlags, type WatchFlag } from "../analytics";
import type { Db } from "../db/client";
import type { Env } from "../env";
import { unprocessable } from "../http/errors";
import type { GraphRef, MetricGoal } from "../objects/registration/rpc";
import { INSTANCE_REGISTRATIONS_MAX, WATCH_CELLS_MAX } from "../schemas/limits";
import { assignmentsOf, learnerPage, metricGoalOf, requestedGoals } from "./goal-specs";

/** Registrations whose objects are asked at once (the class is read in chunks of this many). */
const FAN_OUT = 50;

/**
 * POST /v0/learning-instances/{id}/metrics/groups (learners to watch): every learner with one of the
 * goals assigned, flagged by its registration's Durable Object (the same rules as status and progress
 * and the recommendation's stuck), grouped per goal and group with a reason a teacher can read. At
 * most WATCH_CELLS_MAX assigned (learner, goal) pairs per request (422 beyond), FAN_OUT objects at once.
 */
export async function learnersToWatch(env: Env, db: Db, liId: string, graph: GraphRef, goalIds: string[]) {
  const nowMs = Date.now();
  const goals = await requestedGoals(db, liId, goalIds);
  const ids = goals.map((g) => g.id);
  // Every learner with one of the goals: at most the instance's registrations (INSTANCE_REGISTRATIONS_MAX).
  const { ids: learners } = await learnerPage(db, liId, ids, 0, INSTANCE_REGISTRATIONS_MAX);
  const assigned = await assignmentsOf(db, learners, ids);
  let pairs = 0;
  for (const goalsOfLearner of assigned.values()) pairs += goalsOfLearner.size;
  if (pairs > WATCH_CELLS_MAX) {
    throw unprocessable(
      `At most ${WATCH_CELLS_MAX} (learner, goal) assignments per request; these goals have ${pairs} in this instance: ask for fewer goals at a time.`,
      [{ path: "body.goal_ids", message: `at most ${WATCH_CELLS_MAX} assigned (learner, goal) pairs per request` }],
    );
  }
  const flags: Pick<WatchFlag, "registrationId" | "goalId" | "group">[] = [];
  for (let i = 0; i < learners.length; i += FAN_OUT) {
    const chunk = learners.slice(i, i + FAN_OUT);
    const results = await Promise.all(
      chunk.map(async (registrationId) => {
        const mine: MetricGoal[] = goals.flatMap((g) => {
          const assignedAt = assigned.get(registrationId)?.get(g.id);
          return assignedAt === undefined ? [] : [metricGoalOf(g, graph, assignedAt)];
        });
        const watched = mine.length ? await env.REGISTRATIONS.get(env.REGISTRATIONS.idFromName(registrationId)).watch(registrationId, mine, nowMs) : [];
        return { registrationId, mine, watched };
      }),
    );
    for (const { registrationId, mine, watched } of results) {
      watched.forEach((w, j) => {
        const goalId = (mine[j] as MetricGoal).spec.id;
        if (w.stuck) flags.push({ registrationId, goalId, group: "stuck" });
        if (w.struggling) flags.push({ registrationId, goalId, group: "struggling" });
        for (const f of w.flags) flags.push(f);
      });
    }
  }
  return { groups: groupWatchFlags(ids, flags, GROUP_REASONS) };
}
