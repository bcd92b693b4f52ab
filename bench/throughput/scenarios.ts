// The scenarios of the throughput benchmark: each is the traffic a connection sends (a request, or
// a cycle of requests), against the service, the hello-world Worker or the storage floor.
import type { PartnerCredentials } from "../../src/services/partners";
import type { RequestSpec, Traffic } from "./load";
import type { Klass } from "./seed";

export interface World {
  app: string;
  hello: string;
  floor: string;
  token: string;
  credentials: PartnerCredentials;
  sample: Klass;
  big: Klass;
}

const json = (token: string) => ({ Authorization: `Bearer ${token}`, "Content-Type": "application/json" });
let keys = 0;
/** A unique Idempotency-Key per event post, as pathwise/client sends. */
const idempotencyKey = () => `bench-${process.pid}-${Date.now().toString(36)}-${(keys++).toString(36)}`;

/** The k-th registration a connection posts to: connections interleave over the first `n` learners. */
const pick = <T>(list: readonly T[], n: number, connection: number, step: number, connections: number) =>
  list[(connection + step * connections) % Math.min(n, list.length)] as T;

export function gradedEvent(k: Pick<Klass, "assessing">, moduleIndex: number) {
  return {
    module_id: k.assessing[moduleIndex % k.assessing.length],
    is_correct: moduleIndex % 3 !== 0,
    duration: 40_000,
    interaction_end_time: new Date().toISOString(),
  };
}

/** 50 graded events ending now, most recent first, 1 ms apart (so the next batch of the same registration is newer). */
export function batchOf50(k: Klass, seed: number) {
  const now = Date.now();
  return {
    events: Array.from({ length: 50 }, (_, i) => ({
      type: "graded-events",
      module_id: k.assessing[(seed + i * 7) % k.assessing.length],
      is_correct: (seed + i) % 3 !== 0,
      duration: 40_000,
      interaction_end_time: new Date(now - i).toISOString(),
    })),
  };
}

export const CONNECTIONS = 16;

export function helloWorld(w: World): Traffic {
  return { url: w.hello, sequence: 1, next: () => ({ method: "GET", path: "/" }) };
}

export function accountsCurrent(w: World): Traffic {
  return { url: w.app, sequence: 1, next: () => ({ method: "GET", path: "/v0/accounts/current", headers: json(w.token) }) };
}

export function floorAccount(w: World): Traffic {
  return { url: w.floor, sequence: 1, next: () => ({ method: "GET", path: `/account/${w.credentials.admin_account_id}` }) };
}

/**
 * One POST per request with a fresh body, connections interleaved over the first `registrations`
 * learners of the class: to the service (with the token and an Idempotency-Key) or to the floor.
 */
function postPerLearner(
  w: World,
  k: Klass,
  registrations: number,
  to: "service" | "floor",
  path: (registration: string) => string,
  body: (seed: number) => unknown,
): Traffic {
  return {
    url: to === "service" ? w.app : w.floor,
    sequence: 1,
    next: (c, s) => ({
      method: "POST",
      path: path(pick(k.registrations, registrations, c, s, CONNECTIONS)),
      ...(to === "service" ? { headers: { ...json(w.token), "Idempotency-Key": idempotencyKey() } } : {}),
      body: JSON.stringify(body(c * 7919 + s)),
    }),
  };
}

/** One graded event per request, across `registrations` learners of the class. */
export const graded = (w: World, k: Klass, registrations = 200) =>
  postPerLearner(
    w,
    k,
    registrations,
    "service",
    (r) => `/v0/registrations/${r}/graded-events`,
    (seed) => gradedEvent(k, seed),
  );

export const floorEvent = (w: World, k: Klass, registrations = 200) =>
  postPerLearner(
    w,
    k,
    registrations,
    "floor",
    (r) => `/event/${r}`,
    (seed) => gradedEvent(k, seed),
  );

export const batch = (w: World, k: Klass, registrations = 200) =>
  postPerLearner(
    w,
    k,
    registrations,
    "service",
    (r) => `/v0/registrations/${r}/batch-events`,
    (seed) => batchOf50(k, seed),
  );

export const floorBatch = (w: World, k: Klass, registrations = 200) =>
  postPerLearner(
    w,
    k,
    registrations,
    "floor",
    (r) => `/event/${r}`,
    (seed) => batchOf50(k, seed),
  );

/**
 * A learner answers, then asks what to do next: a graded event, then the recommendation for the
 * class goal, on the same registration (so every recommendation is computed for a new learner state,
 * as in class; a repeated ask without an answer is served from the object's stored recommendation).
 */
export function answerThenRecommend(w: World, k: Klass, registrations = 200): Traffic {
  return {
    url: w.app,
    sequence: 2,
    next: (c, s) => {
      const reg = pick(k.registrations, registrations, c, Math.floor(s / 2), CONNECTIONS);
      if (s % 2 === 0) {
        return {
          method: "POST",
          path: `/v0/registrations/${reg}/graded-events`,
          headers: { ...json(w.token), "Idempotency-Key": idempotencyKey() },
          body: JSON.stringify(gradedEvent(k, c * 7919 + s)),
        };
      }
      return { method: "GET", path: `/v0/registrations/${reg}/recommendation?goal_id=${k.goalId}`, headers: json(w.token) };
    },
  };
}

export function floorAnswerThenRecommend(w: World, k: Klass, registrations = 200): Traffic {
  return {
    url: w.floor,
    sequence: 2,
    next: (c, s) => {
      const reg = pick(k.registrations, registrations, c, Math.floor(s / 2), CONNECTIONS);
      return s % 2 === 0
        ? { method: "POST", path: `/event/${reg}`, body: JSON.stringify(gradedEvent(k, c * 7919 + s)) }
        : { method: "GET", path: `/recommendation/${reg}` };
    },
  };
}

/** One token's reads of `registrations` learners' registrations (GET /v0/registrations/{id}), connections interleaved. */
export function registrationReads(w: World, k: Klass, registrations = 64): Traffic {
  return {
    url: w.app,
    sequence: 1,
    next: (c, s) => ({ method: "GET", path: `/v0/registrations/${pick(k.registrations, registrations, c, s, CONNECTIONS)}`, headers: json(w.token) }),
  };
}

/** Status and progress of the class goal, `perPage` learners per page, cycling through the pages. */
export function statusPage(w: World, k: Klass, perPage = 100): Traffic {
  const pages = Math.max(1, Math.floor(k.registrations.length / perPage));
  return {
    url: w.app,
    sequence: 1,
    next: (c, s) => ({
      method: "POST",
      path: `/v0/learning-instances/${k.instanceId}/metrics/status-and-progress`,
      headers: json(w.token),
      body: JSON.stringify({ goal_ids: [k.goalId], registration_offset: ((c + s * CONNECTIONS) % pages) * perPage, registrations_per_page: perPage }),
    }),
  };
}

export function floorStatus(w: World, k: Klass, perPage = 100): Traffic {
  const pages = Math.max(1, Math.floor(k.registrations.length / perPage));
  return {
    url: w.floor,
    sequence: 1,
    next: (c, s) => {
      const page = (c + s * CONNECTIONS) % pages;
      return { method: "POST", path: "/status", body: JSON.stringify(k.registrations.slice(page * perPage, page * perPage + perPage)) };
    },
  };
}

function accountSlice(k: Klass, n: number, c: number, s: number): string[] {
  const slices = Math.max(1, Math.floor(k.accounts.length / n));
  const i = (c + s * CONNECTIONS) % slices;
  return k.accounts.slice(i * n, i * n + n);
}

/** Predicted scores of `accounts` learners on 20 objectives of the graph (one group). */
export function predictedScore(w: World, k: Klass, accounts = 100, objectives = 20): Traffic {
  const objectiveIds = k.objectives.slice(0, objectives);
  return {
    url: w.app,
    sequence: 1,
    next: (c, s) => ({
      method: "POST",
      path: "/v0/accounts/metrics/predicted-score",
      headers: json(w.token),
      body: JSON.stringify({
        account_ids: accountSlice(k, accounts, c, s),
        graph_ids: [k.graphLabel],
        grouped_learning_objectives: [{ group_id: "unit", learning_objectives: objectiveIds.map((id) => ({ learning_objective_id: id })) }],
        confidence_levels: [10, 50, 90],
      }),
    }),
  };
}

export function floorScore(w: World, k: Klass, graphUuid: string, accounts = 100): Traffic {
  return {
    url: w.floor,
    sequence: 1,
    next: (c, s) => ({ method: "POST", path: "/score", body: JSON.stringify({ graph: graphUuid, accounts: accountSlice(k, accounts, c, s) }) }),
  };
}

/** Client-credentials grants for the class's learners in turn. */
export function tokenIssue(w: World, k: Klass): Traffic {
  const basic = `Basic ${btoa(`${w.credentials.client_id}:${w.credentials.client_secret}`)}`;
  return {
    url: w.app,
    sequence: 1,
    next: (c, s): RequestSpec => ({
      method: "POST",
      path: "/v0/oauth/token",
      headers: { Authorization: basic, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "client_credentials", scope: pick(k.externalIds, k.externalIds.length, c, s, CONNECTIONS) }).toString(),
    }),
  };
}

export function floorToken(w: World, k: Klass): Traffic {
  return {
    url: w.floor,
    sequence: 1,
    next: (c, s) => ({
      method: "POST",
      path: `/token?scope=${encodeURIComponent(pick(k.externalIds, k.externalIds.length, c, s, CONNECTIONS))}`,
      headers: { "X-Client-Id": w.credentials.client_id },
    }),
  };
}
