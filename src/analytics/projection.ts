/**
 * Per-(account, graph) projection of what the learner model knows, published by every registration's
 * Durable Object through a Queue and merged into one D1 row per (account, graph).
 *
 * The merge is a join (commutative, associative, idempotent), so at-least-once, out-of-order
 * delivery gives the same projection whatever the order and however often a message is applied:
 *
 * - per registration, every value is last-writer-wins by the registration's own sequence number
 *   (`seq`, strictly increasing over everything that registration publishes); a deleted registration
 *   becomes a tombstone (removal wins over any seq);
 * - coverage is a set union of answered assessment modules, kept as a bottom-k sketch of their
 *   53-bit hashes (exact up to COVERAGE_SKETCH distinct modules per objective, estimated above);
 * - at most MAX_REGISTRATIONS registrations are kept: the most recently created ones (creation time
 *   never changes, so a registration outside the bound can never come back and the bound commutes
 *   with the merge).
 *
 * Results are canonical (keys sorted, arrays sorted), so equal projections serialise identically.
 */
import { hash53 } from "./numeric";

export const PROJECTION_VERSION = 1;
/** Registrations of one account on one graph whose beliefs are kept (most recently created). */
export const MAX_REGISTRATIONS = 8;
/** Distinct answered modules per objective counted exactly; above it the count is estimated. */
export const COVERAGE_SKETCH = 16;
const HASH_SPACE = 2 ** 53;

/** [mean, variance, graded answers, last event time ms (0 = unknown), seq of the message that set it] */
export type BeliefEntry = [mu: number, v: number, n: number, t: number, seq: number];

/** A registration's contribution. */
export interface RegistrationEntry {
  createdAt: number;
  /** Highest sequence number applied. */
  seq: number;
  /** Latest event time of the registration (ms; 0 = none). */
  lastActivity: number;
  /** First event time of the registration (ms; 0 = none). */
  firstActivity: number;
  removed: boolean;
  /** The registration's global ability belief (absent once removed). */
  global?: BeliefEntry;
}

export interface ObjectiveProjection {
  /** Per registration id: the objective's offset belief in that registration (offset to its global ability). */
  beliefs: Record<string, BeliefEntry>;
  /** Bottom-k sketch: the smallest COVERAGE_SKETCH 53-bit hashes of answered assessment module ids, ascending. */
  answered: number[];
}

export interface AccountGraphProjection {
  version: typeof PROJECTION_VERSION;
  accountId: string;
  graphId: string;
  registrations: Record<string, RegistrationEntry>;
  objectives: Record<string, ObjectiveProjection>;
  /** Latest event time over every message ever applied (ms; 0 = none). */
  lastActivity: number;
}

/** What one registration publishes. A full snapshot lists every objective it has touched; a delta only the changed ones. */
export interface ProjectionMessage {
  version: typeof PROJECTION_VERSION;
  accountId: string;
  graphId: string;
  registrationId: string;
  /** Registration creation time (ms); never changes. Ranks registrations for MAX_REGISTRATIONS. */
  registrationCreatedAt: number;
  /** Strictly increasing per registration over every message it publishes (e.g. its outbox id). */
  seq: number;
  /** The registration was deleted: its beliefs leave the projection (its answered modules stay counted). */
  removed?: boolean;
  lastActivity: number;
  firstActivity?: number;
  /** [mean, variance, graded answers, last event time] of the registration's global ability. */
  global?: [number, number, number, number];
  /** Objective id -> [offset mean, variance, graded answers, last event time]. */
  objectives?: Record<string, [number, number, number, number]>;
  /** Objective id -> coverage sketch (see addAnswered); merged by union, so sending the whole sketch is fine. */
  answered?: Record<string, number[]>;
}

/** Coverage sketch helpers (usable by the Durable Object to keep its own sketch per objective). */
export function moduleHash(moduleId: string): number {
  return hash53(moduleId);
}

/** Union of two sketches, bottom-k. Pure; inputs are not modified. */
export function unionSketch(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (out.length < COVERAGE_SKETCH && (i < a.length || j < b.length)) {
    const x = i < a.length ? (a[i] as number) : Infinity;
    const y = j < b.length ? (b[j] as number) : Infinity;
    const v = Math.min(x, y);
    if (x === v) i++;
    if (y === v) j++;
    if (out.length === 0 || out[out.length - 1] !== v) out.push(v);
  }
  return out;
}

/** The sketch with one more answered module. */
export function addAnswered(sketch: readonly number[] | undefined, moduleId: string): number[] {
  return unionSketch(sketch ?? [], [moduleHash(moduleId)]);
}

/** Distinct answered modules: exact below COVERAGE_SKETCH, else the k-minimum-values estimate (k−1)/h_k. */
export function answeredCount(sketch: readonly number[]): number {
  if (sketch.length < COVERAGE_SKETCH) return sketch.length;
  const kth = (sketch[COVERAGE_SKETCH - 1] as number) / HASH_SPACE;
  return Math.max(COVERAGE_SKETCH, Math.round((COVERAGE_SKETCH - 1) / Math.max(kth, 1e-12)));
}

/** Coverage of an objective: distinct answered assessment modules ÷ requirement, capped at 1. */
export function coverage(sketch: readonly number[] | undefined, requirement: number): number {
  if (!sketch || requirement <= 0) return sketch && sketch.length > 0 ? 1 : 0;
  return Math.min(1, answeredCount(sketch) / requirement);
}

function sortedRecord<T>(rec: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const k of Object.keys(rec).sort()) out[k] = rec[k] as T;
  return out;
}

/** Deterministic total order of entries with the same seq (only differs if a publisher reused a seq). */
function laterEntry(a: BeliefEntry, b: BeliefEntry): BeliefEntry {
  if (a[4] !== b[4]) return a[4] > b[4] ? a : b;
  for (let i = 0; i < 4; i++) if (a[i] !== b[i]) return (a[i] as number) > (b[i] as number) ? a : b;
  return a;
}

function mergeRegistration(a: RegistrationEntry, b: RegistrationEntry): RegistrationEntry {
  const removed = a.removed || b.removed;
  const first = [a.firstActivity, b.firstActivity].filter((t) => t > 0);
  const out: RegistrationEntry = {
    createdAt: Math.min(a.createdAt, b.createdAt),
    seq: Math.max(a.seq, b.seq),
    lastActivity: Math.max(a.lastActivity, b.lastActivity),
    firstActivity: first.length ? Math.min(...first) : 0,
    removed,
  };
  if (!removed) {
    const g = a.global && b.global ? laterEntry(a.global, b.global) : (a.global ?? b.global);
    if (g) out.global = g;
  }
  return out;
}

/** Registration ids kept under the bound: the MAX_REGISTRATIONS most recently created (ties: larger id). */
function keptRegistrations(regs: Record<string, RegistrationEntry>): Set<string> {
  const ids = Object.keys(regs);
  if (ids.length <= MAX_REGISTRATIONS) return new Set(ids);
  ids.sort((x, y) => {
    const cx = (regs[x] as RegistrationEntry).createdAt;
    const cy = (regs[y] as RegistrationEntry).createdAt;
    return cx !== cy ? cy - cx : x < y ? 1 : x > y ? -1 : 0;
  });
  return new Set(ids.slice(0, MAX_REGISTRATIONS));
}

/** The empty projection of an (account, graph). */
export function emptyProjection(accountId: string, graphId: string): AccountGraphProjection {
  return { version: PROJECTION_VERSION, accountId, graphId, registrations: {}, objectives: {}, lastActivity: 0 };
}

/** The projection holding one message. */
export function projectionOfMessage(m: ProjectionMessage): AccountGraphProjection {
  const reg: RegistrationEntry = {
    createdAt: m.registrationCreatedAt,
    seq: m.seq,
    lastActivity: m.lastActivity || 0,
    firstActivity: m.firstActivity || 0,
    removed: m.removed === true,
  };
  if (!reg.removed && m.global) reg.global = [...m.global, m.seq];
  const objectives: Record<string, ObjectiveProjection> = {};
  if (!reg.removed) {
    for (const [k, o] of Object.entries(m.objectives ?? {})) objectives[k] = { beliefs: { [m.registrationId]: [...o, m.seq] }, answered: [] };
  }
  for (const [k, sketch] of Object.entries(m.answered ?? {})) {
    const canonical = unionSketch(
      [...sketch].sort((x, y) => x - y),
      [],
    );
    objectives[k] ??= { beliefs: {}, answered: [] };
    const o = objectives[k];
    o.answered = canonical;
  }
  return {
    version: PROJECTION_VERSION,
    accountId: m.accountId,
    graphId: m.graphId,
    registrations: { [m.registrationId]: reg },
    objectives: sortedRecord(objectives),
    lastActivity: m.lastActivity || 0,
  };
}

/** Join of two projections of the same (account, graph). Commutative, associative, idempotent. */
export function mergeProjections(a: AccountGraphProjection, b: AccountGraphProjection): AccountGraphProjection {
  if (a.accountId !== b.accountId || a.graphId !== b.graphId) throw new Error("mergeProjections: different (account, graph)");
  const regs: Record<string, RegistrationEntry> = { ...a.registrations };
  for (const [id, r] of Object.entries(b.registrations)) {
    const x = regs[id];
    regs[id] = x ? mergeRegistration(x, r) : r;
  }
  const kept = keptRegistrations(regs);
  const registrations: Record<string, RegistrationEntry> = {};
  for (const id of Object.keys(regs).sort()) if (kept.has(id)) registrations[id] = regs[id] as RegistrationEntry;

  const objectives: Record<string, ObjectiveProjection> = {};
  const keys = new Set([...Object.keys(a.objectives), ...Object.keys(b.objectives)]);
  for (const k of [...keys].sort()) {
    const x = a.objectives[k];
    const y = b.objectives[k];
    const beliefs: Record<string, BeliefEntry> = {};
    const ids = new Set([...Object.keys(x?.beliefs ?? {}), ...Object.keys(y?.beliefs ?? {})]);
    for (const id of [...ids].sort()) {
      const r = registrations[id];
      if (!r || r.removed) continue;
      const ex = x?.beliefs[id];
      const ey = y?.beliefs[id];
      const e = ex && ey ? laterEntry(ex, ey) : (ex ?? ey);
      if (e) beliefs[id] = e;
    }
    const answered = unionSketch(x?.answered ?? [], y?.answered ?? []);
    if (Object.keys(beliefs).length > 0 || answered.length > 0) objectives[k] = { beliefs, answered };
  }
  return {
    version: PROJECTION_VERSION,
    accountId: a.accountId,
    graphId: a.graphId,
    registrations,
    objectives,
    lastActivity: Math.max(a.lastActivity, b.lastActivity),
  };
}

/** Applies one message (the consumer's step): merge(projection, projectionOfMessage(message)). */
export function applyProjectionMessage(projection: AccountGraphProjection | undefined, message: ProjectionMessage): AccountGraphProjection {
  const one = projectionOfMessage(message);
  return mergeProjections(projection ?? emptyProjection(message.accountId, message.graphId), one);
}

/** Checks the shape of an untrusted message (a poisoned one is rejected, and goes to the dead-letter queue). */
export function parseProjectionMessage(value: unknown): ProjectionMessage {
  const fail = (why: string): never => {
    throw new Error(`invalid projection message: ${why}`);
  };
  if (!value || typeof value !== "object") fail("not an object");
  const m = value as Record<string, unknown>;
  if (m.version !== PROJECTION_VERSION) fail("version");
  for (const f of ["accountId", "graphId", "registrationId"]) if (typeof m[f] !== "string" || (m[f] as string).length === 0) fail(f);
  const num = (v: unknown) => typeof v === "number" && Number.isFinite(v);
  if (!num(m.registrationCreatedAt) || !num(m.seq) || !num(m.lastActivity)) fail("registrationCreatedAt/seq/lastActivity");
  if (m.firstActivity !== undefined && !num(m.firstActivity)) fail("firstActivity");
  if (m.removed !== undefined && typeof m.removed !== "boolean") fail("removed");
  const tuple = (v: unknown) => Array.isArray(v) && v.length === 4 && v.every(num) && (v[1] as number) > 0 && (v[2] as number) >= 0;
  if (m.global !== undefined && !tuple(m.global)) fail("global");
  const safeKeys = (o: object) => Object.keys(o).every((k) => k !== "__proto__" && k.length > 0);
  if (m.objectives !== undefined) {
    if (!m.objectives || typeof m.objectives !== "object" || !safeKeys(m.objectives)) fail("objectives");
    for (const v of Object.values(m.objectives as object)) if (!tuple(v)) fail("objectives entry");
  }
  if (m.answered !== undefined) {
    if (!m.answered || typeof m.answered !== "object" || !safeKeys(m.answered)) fail("answered");
    for (const v of Object.values(m.answered as object)) {
      if (!Array.isArray(v) || v.length > COVERAGE_SKETCH || !v.every((h) => Number.isSafeInteger(h) && h >= 0)) fail("answered entry");
    }
  }
  return m as unknown as ProjectionMessage;
}

/** Identity of the publishing registration. */
export interface PublisherMeta {
  accountId: string;
  graphId: string;
  registrationId: string;
  registrationCreatedAt: number;
  /** Strictly increasing per registration (e.g. the outbox row id). */
  seq: number;
  /** Time of the registration's first event (ms), if known. */
  firstActivity?: number;
}

/** The learner-state fields a message is built from (structurally a LearnerState of src/model). */
export interface PublishableState {
  global: { mu: number; v: number; n: number; t: number };
  objectives: Record<string, { mu: number; v: number; n: number; t: number }>;
}

const r6 = (x: number) => Math.round(x * 1e6) / 1e6;
const beliefTuple = (o: { mu: number; v: number; n: number; t: number }): [number, number, number, number] => [r6(o.mu), Math.max(1e-6, r6(o.v)), o.n, o.t];

/**
 * Messages publishing a registration's learner state: every touched objective (a full snapshot, the
 * default: self-healing if an earlier message was lost) or only `options.objectives`, plus the coverage
 * sketches. Split into parts of at most `maxBytes` of JSON that share one seq (they merge like one message).
 */
export function projectionMessages(
  state: PublishableState,
  meta: PublisherMeta,
  answered: Record<string, readonly number[]> = {},
  options: { objectives?: Iterable<string>; maxBytes?: number } = {},
): ProjectionMessage[] {
  const maxBytes = options.maxBytes ?? 100_000;
  const keys = [...new Set(options.objectives ?? Object.keys(state.objectives))].sort();
  const base: ProjectionMessage = {
    version: PROJECTION_VERSION,
    accountId: meta.accountId,
    graphId: meta.graphId,
    registrationId: meta.registrationId,
    registrationCreatedAt: meta.registrationCreatedAt,
    seq: meta.seq,
    lastActivity: state.global.t || 0,
    ...(meta.firstActivity ? { firstActivity: meta.firstActivity } : {}),
    global: beliefTuple(state.global),
  };
  const baseBytes = JSON.stringify(base).length + 40;
  const out: ProjectionMessage[] = [];
  let objectives: Record<string, [number, number, number, number]> = {};
  let cov: Record<string, number[]> = {};
  let bytes = baseBytes;
  const flush = () => {
    out.push({ ...base, objectives, answered: cov });
    objectives = {};
    cov = {};
    bytes = baseBytes;
  };
  const entries: [string, "o" | "a"][] = [
    ...keys.map((k): [string, "o"] => [k, "o"]),
    ...Object.keys(answered)
      .sort()
      .map((k): [string, "a"] => [k, "a"]),
  ];
  for (const [k, kind] of entries) {
    let size: number;
    if (kind === "o") {
      const o = state.objectives[k];
      if (!o) continue;
      const t = beliefTuple(o);
      size = JSON.stringify(k).length + JSON.stringify(t).length + 2;
      if (bytes + size > maxBytes && bytes > baseBytes) flush();
      objectives[k] = t;
    } else {
      const s = unionSketch(
        [...(answered[k] ?? [])].sort((x, y) => x - y),
        [],
      );
      size = JSON.stringify(k).length + JSON.stringify(s).length + 2;
      if (bytes + size > maxBytes && bytes > baseBytes) flush();
      cov[k] = s;
    }
    bytes += size;
  }
  if (out.length === 0 || Object.keys(objectives).length > 0 || Object.keys(cov).length > 0) flush();
  return out;
}

/** A deleted registration's message: its beliefs leave the projection. */
export function removalMessage(meta: PublisherMeta, lastActivity = 0): ProjectionMessage {
  return {
    version: PROJECTION_VERSION,
    accountId: meta.accountId,
    graphId: meta.graphId,
    registrationId: meta.registrationId,
    registrationCreatedAt: meta.registrationCreatedAt,
    seq: meta.seq,
    removed: true,
    lastActivity,
  };
}
