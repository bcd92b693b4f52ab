/**
 * Learners to watch (POST /learning-instances/{id}/metrics/groups): the rules that are not status
 * rules. `stuck` and `struggling` come from src/policy (same rules as status-and-progress and the
 * recommendation's `stuck`); they are passed in as flags and grouped with these. Pure.
 *
 * For a (registration, goal) whose goal is not complete (status neither complete nor complete_max_work):
 * - not_started: no event in the goal's scope yet;
 * - inactive: started, but no event of the registration for INACTIVE_DAYS days;
 * - behind_schedule: the goal has a deadline and either the readiness forecast gives less than
 *   BEHIND_PROBABILITY, or (at least MIN_ELAPSED_SHARE of the time from assignment to deadline gone)
 *   progress trails the elapsed share of that time by more than BEHIND_MARGIN.
 * A learner can be in several groups (e.g. inactive and behind_schedule).
 */
import type { ReadinessForecast } from "./readiness";

export const INACTIVE_DAYS = 7;
export const BEHIND_PROBABILITY = 0.3;
export const BEHIND_MARGIN = 0.25;
export const MIN_ELAPSED_SHARE = 0.25;

const DAY_MS = 86_400_000;

export type WatchGroup = "stuck" | "struggling" | "inactive" | "not_started" | "behind_schedule";
/** Order of groups in the response. */
export const WATCH_GROUPS: readonly WatchGroup[] = ["stuck", "struggling", "inactive", "not_started", "behind_schedule"];

export type GoalStatus = "complete" | "complete_max_work" | "in_progress" | "struggling" | "no_work";

export interface WatchInput {
  registrationId: string;
  goalId: string;
  nowMs: number;
  status: GoalStatus;
  /** 0..1, from status-and-progress. */
  progress: number;
  /** Events (graded or ungraded) in the goal's scope. */
  eventsInScope: number;
  /** Latest event of the registration (ms; 0 = none). */
  lastActivityMs: number;
  assignedAtMs?: number;
  deadlineMs?: number | null;
  readiness?: ReadinessForecast;
}

export interface WatchFlag {
  registrationId: string;
  goalId: string;
  group: WatchGroup;
  /** Why this learner is in the group, in a sentence for a teacher. */
  detail: string;
}

const pct = (x: number) => `${Math.round(100 * x)}%`;
const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The non-status flags of one (registration, goal). */
export function watchFlags(x: WatchInput): WatchFlag[] {
  if (x.status === "complete" || x.status === "complete_max_work") return [];
  const out: WatchFlag[] = [];
  const flag = (group: WatchGroup, detail: string) => out.push({ registrationId: x.registrationId, goalId: x.goalId, group, detail });
  if (x.eventsInScope <= 0) {
    const since = x.assignedAtMs && x.assignedAtMs <= x.nowMs ? ` (assigned ${Math.floor((x.nowMs - x.assignedAtMs) / DAY_MS)} days ago)` : "";
    flag("not_started", `Has not worked on this goal yet${since}.`);
  } else if (x.lastActivityMs > 0 && x.nowMs - x.lastActivityMs >= INACTIVE_DAYS * DAY_MS) {
    flag("inactive", `No activity for ${Math.floor((x.nowMs - x.lastActivityMs) / DAY_MS)} days (last on ${date(x.lastActivityMs)}).`);
  }
  const deadline = x.deadlineMs ?? null;
  if (deadline !== null) {
    const p = x.readiness?.probability_ready_by_end ?? null;
    let elapsed: number | null = null;
    if (x.assignedAtMs !== undefined && deadline > x.assignedAtMs) elapsed = Math.min(1, Math.max(0, (x.nowMs - x.assignedAtMs) / (deadline - x.assignedAtMs)));
    // the share of the time gone, when progress lags it
    const lagging = elapsed !== null && elapsed >= MIN_ELAPSED_SHARE && x.progress < elapsed - BEHIND_MARGIN ? elapsed : null;
    if (p !== null && p < BEHIND_PROBABILITY) {
      const pace = x.readiness?.pace;
      const paceText = pace && pace.activeDays > 0 ? `, about ${pace.itemsPerDay.toFixed(1)} answers a day lately` : ", no answers lately";
      flag("behind_schedule", `Unlikely to finish by ${date(deadline)}: ${pct(p)} chance at the current pace${paceText}.`);
    } else if (lagging !== null) {
      flag("behind_schedule", `Progress ${pct(x.progress)} with ${pct(lagging)} of the time to ${date(deadline)} gone.`);
    }
  }
  return out;
}

/** Group-level reasons (one per group in the response). */
export const GROUP_REASONS: Record<WatchGroup, string> = {
  stuck: "Stuck on a target: repeated wrong answers without progress.",
  struggling: "Struggling: the model sees little progress toward mastery on a target.",
  inactive: `Started the goal but no activity in the last ${INACTIVE_DAYS} days.`,
  not_started: "Assigned the goal but has not worked on it yet.",
  behind_schedule: `Behind schedule: less than ${pct(BEHIND_PROBABILITY)} chance of finishing by the deadline at the current pace, or progress trailing the elapsed time by more than ${pct(BEHIND_MARGIN)}.`,
};

export interface WatchGroupRow {
  group: WatchGroup;
  goal_id: string;
  registration_ids: string[];
  reason: string;
}

/**
 * Groups flags (these and the policy's stuck / struggling) per goal in `goalIds` order, then per group in
 * WATCH_GROUPS order; registration ids keep the order of `flags` (pass them in creation order) and
 * appear once per group. Empty groups are left out. `reasons` overrides a group's reason (e.g. the
 * policy's own wording for stuck).
 */
export function groupWatchFlags(
  goalIds: readonly string[],
  flags: readonly Pick<WatchFlag, "registrationId" | "goalId" | "group">[],
  reasons: Partial<Record<WatchGroup, string>> = {},
): WatchGroupRow[] {
  const rows: WatchGroupRow[] = [];
  for (const goalId of goalIds) {
    for (const group of WATCH_GROUPS) {
      const ids: string[] = [];
      const seen = new Set<string>();
      for (const f of flags) {
        if (f.goalId !== goalId || f.group !== group || seen.has(f.registrationId)) continue;
        seen.add(f.registrationId);
        ids.push(f.registrationId);
      }
      if (ids.length) rows.push({ group, goal_id: goalId, registration_ids: ids, reason: reasons[group] ?? GROUP_REASONS[group] });
    }
  }
  return rows;
}
