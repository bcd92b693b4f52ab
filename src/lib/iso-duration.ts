/**
 * Strict ISO 8601 durations as goals use them (`P2W`, `P10D`, `PT36H`, `P1Y2M3DT4H5M6S`).
 * Integer components only; weeks stand alone (`P2W`, not `P2W3D`); at least one component;
 * `T` must be followed by a time component; the total must be positive.
 */
export interface IsoDuration {
  years: number;
  months: number;
  weeks: number;
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
}

const WEEKS = /^P(\d+)W$/;
const FULL = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;
/** generous bound per component, so the arithmetic below stays exact */
const MAX_COMPONENT = 100_000;

export function parseIsoDuration(text: string): IsoDuration | undefined {
  const zero: IsoDuration = { years: 0, months: 0, weeks: 0, days: 0, hours: 0, minutes: 0, seconds: 0 };
  let d: IsoDuration;
  const w = WEEKS.exec(text);
  if (w) d = { ...zero, weeks: Number(w[1]) };
  else {
    const m = FULL.exec(text);
    if (!m || text === "P" || text.endsWith("T")) return undefined;
    const n = (s: string | undefined) => (s === undefined ? 0 : Number(s));
    d = { ...zero, years: n(m[1]), months: n(m[2]), days: n(m[3]), hours: n(m[4]), minutes: n(m[5]), seconds: n(m[6]) };
  }
  const parts = Object.values(d);
  if (parts.some((v) => !Number.isSafeInteger(v) || v > MAX_COMPONENT)) return undefined;
  if (parts.every((v) => v === 0)) return undefined;
  return d;
}

/**
 * The instant `duration` after `from`: years and months first, by the UTC calendar, clamped to the
 * last day of a shorter month (Jan 31 + P1M = Feb 28, or 29), as date libraries do; then weeks,
 * days and time as exact lengths.
 */
export function addIsoDuration(from: Date, d: IsoDuration): Date {
  const t = new Date(from.getTime());
  const months = d.years * 12 + d.months;
  if (months) {
    const day = t.getUTCDate();
    t.setUTCDate(1);
    t.setUTCMonth(t.getUTCMonth() + months);
    const lastDay = new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + 1, 0)).getUTCDate();
    t.setUTCDate(Math.min(day, lastDay));
  }
  const ms = (((d.weeks * 7 + d.days) * 24 + d.hours) * 60 + d.minutes) * 60_000 + d.seconds * 1000;
  return new Date(t.getTime() + ms);
}

/**
 * Weeks, days, hours, minutes, seconds; fractions allowed (xAPI's result.duration, e.g. `PT1M30.5S`).
 * No flags, so the OpenAPI document states it as the field's `pattern`; `exactDurationMs` also refuses `P` and `PT`.
 */
export const EXACT_DURATION = /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;
const UNIT_MS = [7 * 86_400_000, 86_400_000, 3_600_000, 60_000, 1000];

/**
 * An ISO 8601 duration of exact length in milliseconds (rounded), or undefined when it is not one:
 * years and months have no fixed length and are refused, as are `P`, `PT` and a trailing `T`.
 */
export function exactDurationMs(text: string): number | undefined {
  const m = EXACT_DURATION.exec(text);
  if (!m || text === "P" || text.endsWith("T")) return undefined;
  let ms = 0;
  for (let i = 0; i < UNIT_MS.length; i++) if (m[i + 1] !== undefined) ms += Number(m[i + 1]) * (UNIT_MS[i] as number);
  return Number.isFinite(ms) ? Math.round(ms) : undefined;
}
