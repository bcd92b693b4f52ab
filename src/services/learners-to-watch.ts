import { GROUP_REASONS, groupWatchFlags, type WatchFlag } from "../analytics";
import type { Db } from "../db/client";
import type { Env } from "../env";
import type { GraphRef, MetricGoal } from "../objects/registration/rpc";
import { assignedLearnerPage } from "./assigned-learner-page";
import { learnersWithinWork, metricGoalOf, nextPage, requestedGoals } from "./goal-specs";
import { registrationObject } from "./registrations";

/** Registrations whose objects are asked at once (a page is read in chunks of this many). */
const FAN_OUT = 50;

export interface WatchQuery {
  goal_ids: string[];
  registration_offset: number;
  registrations_per_page: number;
}

/**
 * POST /v0/learning-instances/{id}/metrics/groups (learners to watch): one page of the learners with
 * one of the goals assigned (in creation order, like the other instance tables), each flagged by its
 * registration's Durable Object (the same rules as status and progress and the recommendation's
 * stuck), grouped per goal and group with a reason a teacher can read. A page holds at most
 * `registrations_per_page` learners, fewer when the goals are large (its work stays under
 * ANALYSIS_PAGE_WORK); FAN_OUT objects are asked at once.
 */
export async function learnersToWatch(env: Env, db: Db, liId: string, graph: GraphRef, query: WatchQuery) {
  const nowMs = Date.now();
  const goals = await requestedGoals(db, liId, query.goal_ids);
  const ids = goals.map((g) => g.id);
  const fits = learnersWithinWork(goals, query.registrations_per_page);
  const { ids: learners, more, assigned } = await assignedLearnerPage(db, liId, ids, query.registration_offset, fits);
  const flags: Pick<WatchFlag, "registrationId" | "goalId" | "group">[] = [];
  for (let i = 0; i < learners.length; i += FAN_OUT) {
    const chunk = learners.slice(i, i + FAN_OUT);
    const results = await Promise.all(
      chunk.map(async (registrationId) => {
        const mine: MetricGoal[] = goals.flatMap((g) => {
          const assignedAt = assigned.get(registrationId)?.get(g.id);
          return assignedAt === undefined ? [] : [metricGoalOf(g, graph, assignedAt)];
        });
        const watched = mine.length ? await registrationObject(env, registrationId).watch(registrationId, mine, nowMs) : [];
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
  return { groups: groupWatchFlags(ids, flags, GROUP_REASONS), ...nextPage(query, learners.length, more) };
}
