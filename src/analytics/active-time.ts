/**
 * Active time and time spent per day, from a registration's events (interaction_end_time, optional
 * duration). Pure.
 *
 * Events are taken in time order (ties: as given). For event i ending at e_i, with gap
 * g_i = e_i − e_{i−1} to the previous event of the registration (∞ for the first):
 *
 *   active_i = min(a_i, g_i, MAX_EVENT_ACTIVE_MS), a_i = the reported duration, or IDLE_CAP_MS without one
 *   spent_i  = g_i when g_i ≤ SESSION_GAP_MS (same session: the whole gap, idle moments included),
 *              else active_i (a new session starts with this event)
 *
 * So an event without a duration counts the time since the previous event, capped at IDLE_CAP_MS
 * (5 min; the first event of a session counts the cap), a reported duration counts as reported but
 * never more than the time since the previous event (overlapping durations are not counted twice)
 * nor more than MAX_EVENT_ACTIVE_MS (60 min). spent ≥ active for every event.
 *
 * Days: an event counts entirely on the calendar day of its end time, in UTC unless the request gives
 * an offset (`utcOffsetMinutes`, a multiple of 15 between −720 and +840: every real time-zone offset).
 * The Durable Object keeps per-quarter-hour totals (ActivitySummary), so any such offset is exact
 * and a request never scans the event log.
 */

export const IDLE_CAP_MS = 5 * 60_000;
export const SESSION_GAP_MS = 30 * 60_000;
export const MAX_EVENT_ACTIVE_MS = 60 * 60_000;
/** Quarter-hour buckets kept by the summary (days back from its latest event). */
export const SUMMARY_RETENTION_DAYS = 120;
/** Most days one active-time request may cover. */
export const MAX_ACTIVE_TIME_DAYS = 7;

const DAY_MS = 86_400_000;
const QUARTER_MS = 900_000;

export interface ActivityEvent {
  /** interaction_end_time, ms. */
  endMs: number;
  /** Reported duration (ms), if any. */
  durationMs?: number;
  /** A graded answer (counts toward pace). */
  graded?: boolean;
}

/** [active ms, spent ms, events, graded events] */
export type Totals = [active: number, spent: number, events: number, graded: number];

/**
 * Bounded incremental summary the Durable Object keeps: totals per quarter hour (key = floor(ms / 15 min))
 * for the last SUMMARY_RETENTION_DAYS days before its latest event, plus what the next event needs.
 */
export interface ActivitySummary {
  version: 1;
  /** End time of the latest event (ms); 0 = none. */
  lastEndMs: number;
  /** End time of the earliest event ever (ms); 0 = none. */
  firstEndMs: number;
  /** All-time totals (not pruned). */
  total: Totals;
  buckets: Record<string, Totals>;
}

export function emptyActivitySummary(): ActivitySummary {
  return { version: 1, lastEndMs: 0, firstEndMs: 0, total: [0, 0, 0, 0], buckets: {} };
}

/** Active and spent time of an event given the end time of the previous event (0 = none). */
export function eventTimes(ev: ActivityEvent, previousEndMs: number): { active: number; spent: number } {
  const gap = previousEndMs > 0 ? Math.max(0, ev.endMs - previousEndMs) : Infinity;
  const claimed = ev.durationMs !== undefined && ev.durationMs >= 0 ? ev.durationMs : IDLE_CAP_MS;
  const active = Math.min(claimed, gap, MAX_EVENT_ACTIVE_MS);
  const spent = gap <= SESSION_GAP_MS ? gap : active;
  return { active, spent };
}

function addTo(t: Totals, active: number, spent: number, graded: boolean): void {
  t[0] += active;
  t[1] += spent;
  t[2] += 1;
  if (graded) t[3] += 1;
}

/**
 * Adds an event that is not older than the summary's latest one (the normal case: events arrive in
 * time order, batches are sorted). Returns false, and leaves the summary unchanged, for an older event:
 * it changes its successor's gap, so the Durable Object rebuilds the summary from its event log
 * (summarizeActivity), which is rare.
 */
export function addActivity(summary: ActivitySummary, ev: ActivityEvent): boolean {
  if (summary.lastEndMs > 0 && ev.endMs < summary.lastEndMs) return false;
  const { active, spent } = eventTimes(ev, summary.lastEndMs);
  const key = String(Math.floor(ev.endMs / QUARTER_MS));
  summary.buckets[key] ??= [0, 0, 0, 0];
  const b = summary.buckets[key];
  addTo(b, active, spent, ev.graded === true);
  addTo(summary.total, active, spent, ev.graded === true);
  if (summary.firstEndMs === 0) summary.firstEndMs = ev.endMs;
  const advanced = Math.floor(ev.endMs / DAY_MS) > Math.floor(summary.lastEndMs / DAY_MS);
  summary.lastEndMs = ev.endMs;
  if (advanced) prune(summary);
  return true;
}

/** The oldest quarter-hour bucket a summary whose latest event ended at `lastEndMs` keeps. */
export function oldestKeptBucket(lastEndMs: number): number {
  return Math.floor((lastEndMs - SUMMARY_RETENTION_DAYS * DAY_MS) / QUARTER_MS);
}

/** The UTC day (days since 1970-01-01) of a quarter-hour bucket key. */
export function bucketDay(key: string | number): number {
  return Math.floor((Number(key) * QUARTER_MS) / DAY_MS);
}

function prune(summary: ActivitySummary): void {
  const oldest = oldestKeptBucket(summary.lastEndMs);
  for (const k of Object.keys(summary.buckets)) if (Number(k) < oldest) delete summary.buckets[k];
}

/** The summary of a whole event log (any order; sorted by end time, stable). */
export function summarizeActivity(events: readonly ActivityEvent[]): ActivitySummary {
  const s = emptyActivitySummary();
  const sorted = events.map((e, i) => [e, i] as const).sort((a, b) => a[0].endMs - b[0].endMs || a[1] - b[1]);
  for (const [e] of sorted) addActivity(s, e);
  return s;
}

/** Local day number (days since 1970-01-01 in the offset) of an instant. */
export function localDay(ms: number, utcOffsetMinutes = 0): number {
  return Math.floor((ms + utcOffsetMinutes * 60_000) / DAY_MS);
}

/** ISO date (YYYY-MM-DD) of a local day number. */
export function dayLabel(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

export interface DayActivity {
  /** YYYY-MM-DD in the requested offset. */
  date: string;
  active_time_ms: number;
  time_spent_ms: number;
  events: number;
  graded: number;
}

export function validOffset(utcOffsetMinutes: number): boolean {
  return Number.isInteger(utcOffsetMinutes) && utcOffsetMinutes % 15 === 0 && utcOffsetMinutes >= -720 && utcOffsetMinutes <= 840;
}

/**
 * Per-day totals for local days [firstDay, lastDay] (inclusive; at most MAX_ACTIVE_TIME_DAYS when
 * `enforceLimit`) from a summary. Days outside the summary's retention come back as zeros: the caller
 * answers those from the event log with summarizeActivity(events of those days and the one before).
 */
export function activityByDay(summary: ActivitySummary, firstDay: number, lastDay: number, utcOffsetMinutes = 0, enforceLimit = true): DayActivity[] {
  if (!validOffset(utcOffsetMinutes)) throw new RangeError("utcOffsetMinutes must be a multiple of 15 between -720 and 840");
  if (lastDay < firstDay) return [];
  if (enforceLimit && lastDay - firstDay + 1 > MAX_ACTIVE_TIME_DAYS) throw new RangeError(`at most ${MAX_ACTIVE_TIME_DAYS} days per request`);
  const days: DayActivity[] = [];
  for (let d = firstDay; d <= lastDay; d++) days.push({ date: dayLabel(d), active_time_ms: 0, time_spent_ms: 0, events: 0, graded: 0 });
  const offsetQ = (utcOffsetMinutes * 60_000) / QUARTER_MS;
  for (const [k, t] of Object.entries(summary.buckets)) {
    const day = Math.floor(((Number(k) + offsetQ) * QUARTER_MS) / DAY_MS);
    if (day < firstDay || day > lastDay) continue;
    const out = days[day - firstDay]!;
    out.active_time_ms += t[0];
    out.time_spent_ms += t[1];
    out.events += t[2];
    out.graded += t[3];
  }
  for (const d of days) {
    d.active_time_ms = Math.round(d.active_time_ms);
    d.time_spent_ms = Math.round(d.time_spent_ms);
  }
  return days;
}

/** Whether the summary covers local day `day` (its quarter hours are retained). */
export function summaryCovers(summary: ActivitySummary, day: number, utcOffsetMinutes = 0): boolean {
  if (summary.lastEndMs === 0) return true;
  const dayStartMs = day * DAY_MS - utcOffsetMinutes * 60_000;
  return dayStartMs >= oldestKeptBucket(summary.lastEndMs) * QUARTER_MS;
}
