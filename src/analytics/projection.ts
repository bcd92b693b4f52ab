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
 * Messages: parsed from the queue in projection-message.ts, built by the publisher in projection-publish.ts;
 * the coverage sketch in coverage-sketch.ts.
 */
import { canonicalSketch, unionSketch } from "./coverage-sketch";

export const PROJECTION_VERSION = 1;
/** Registrations of one account on one graph whose beliefs are kept (most recently created). */
export const MAX_REGISTRATIONS = 8;

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

function sortedRecord<T>(rec: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const k of Object.keys(rec).sort()) out[k] = rec[k]!;
  return out;
}

/** Deterministic total order of entries with the same seq (only differs if a publisher reused a seq). */
function laterEntry(a: BeliefEntry, b: BeliefEntry): BeliefEntry {
  if (a[4] !== b[4]) return a[4] > b[4] ? a : b;
  for (let i = 0; i < 4; i++) if (a[i] !== b[i]) return a[i]! > b[i]! ? a : b;
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
    const cx = regs[x]!.createdAt;
    const cy = regs[y]!.createdAt;
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
    const canonical = canonicalSketch(sketch);
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
  for (const id of Object.keys(regs).sort()) if (kept.has(id)) registrations[id] = regs[id]!;

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

/** The learner-state fields a message is built from (structurally a LearnerState of src/model). */
export interface PublishableState {
  global: { mu: number; v: number; n: number; t: number };
  objectives: Record<string, { mu: number; v: number; n: number; t: number }>;
}
