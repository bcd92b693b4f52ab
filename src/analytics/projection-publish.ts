/** Building the projection messages a registration publishes (its learner state, or its removal). */
import { canonicalSketch } from "./coverage-sketch";
import { PROJECTION_VERSION, type ProjectionMessage, type PublishableState } from "./projection";

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
      const s = canonicalSketch(answered[k] ?? []);
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
