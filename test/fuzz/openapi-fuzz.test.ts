import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { signAccessToken } from "../../src/auth/access-token";
import type { Env } from "../../src/env";
import { MAX_ANSWER_BYTES } from "../../src/schemas/limits";
import { createAccount, ensureDemoGraph, type Json, newPartner, type Partner, register } from "../support/api";
import { rowCounts } from "../support/d1-counts";
import { BASE } from "../support/raw-call";
import { eventCount } from "../support/registration-object";
import { api } from "../support/typed-api";
import { bodyLimitOf, bodyText, type FuzzRequest, type IdPools, type MutationKind, type Operation, operationsOf, RequestFactory, urlOf } from "./requests";
import { SchemaReader } from "./schema-arbitraries";

/**
 * Property-based fuzzing of EVERY operation of the service's own OpenAPI document
 * (GET /v0/openapi.json), so an endpoint added later is fuzzed as soon as it is documented:
 *
 * - valid:   requests that satisfy the document (path ids mostly from the fuzz world, some made up;
 *            unknown extra fields where objects are not strict) are never answered 400 and never
 *            5xx: 2xx, or a semantic 403/404/409/422 (RFC 6749 invalid_scope/invalid_grant on the
 *            token endpoint);
 * - mutated: the same with one defect (wrong type, out of range, missing field, a control/bidi/
 *            zero-width character, invalid UTF-8, a body over the size limit or an array over its
 *            maximum, deep nesting, an unknown field where an object is strict) are answered
 *            400/413/422 in the decided error shape;
 * - at maxima: valid requests whose lists are at their documented maxItems and whose bounded
 *            integers (pages, per-page counts) at their maximum (docs/security.md "Limits") are treated as
 *            valid ones (a body over the route's size limit may be a 413), and answer at most 10 MB;
 * - any refused request changes nothing: D1 row counts of every table (less those the queue
 *   consumer writes in the background) and the event count of every fuzz-world registration's
 *   RegistrationObject are the same before and after.
 *
 * Seeded and bounded (FUZZ_RUNS valid and mutated requests per operation, default 6 and 10; seed
 * FUZZ_SEED, default fixed), `npm run fuzz -- --runs N [--seed S]` for longer runs. Rate limits are
 * off for the fuzz (the app is called with RATE_LIMIT_MULTIPLIER=off), the rest is the real Worker.
 */

const RUNS = Math.max(0, Number(env.FUZZ_RUNS) || 0);
const VALID_RUNS = RUNS || 6;
const MUTATED_RUNS = RUNS || 10;
const MAXIMA_RUNS = RUNS ? Math.max(1, Math.ceil(RUNS / 5)) : 2;
const SEED = Number.isSafeInteger(Number(env.FUZZ_SEED)) && env.FUZZ_SEED !== "" ? Number(env.FUZZ_SEED) : 20_261_111;

const app = createApp();
const fuzzEnv = { ...env, RATE_LIMIT_MULTIPLIER: "off" } as Env;

const doc = (await (await SELF.fetch(`${BASE}/v0/openapi.json`)).json()) as Json;
const operations = operationsOf(doc);

interface World {
  partner: Partner;
  token: string;
  pools: IdPools;
  strings: string[];
  byField: Record<string, string[]>;
  registrations: string[];
}

let world: World;
let factory: RequestFactory;
let atMaxima: RequestFactory;
const ledger = new Map<string, { valid: number; mutated: number; maxima: number; statuses: Map<string, number>; kinds: Map<MutationKind, number> }>();

/** Resources for the requests to name: two instances with learners, an instructor, goals, the demo graph. */
async function buildWorld(): Promise<World> {
  const partner = await newPartner("Fuzz partner");
  const graph = await ensureDemoGraph(partner);
  const token = await signAccessToken(
    { jti: crypto.randomUUID(), partner_id: partner.partner_id, account_id: partner.admin_account_id, admin: true, exp: Math.floor(Date.now() / 1000) + 3600 },
    env.TOKEN_SIGNING_KEY,
  );
  const accounts = await Promise.all(Array.from({ length: 5 }, () => createAccount(partner)));
  const instances: Json[] = [];
  for (const name of ["Fuzz course A", "Fuzz course B"]) {
    const res = await api("POST", "/v0/learning-instances", { token, body: { graph_id: "gref-demo", name } });
    instances.push(res.body);
  }
  const [a, b] = instances as [Json, Json];
  const regs = [
    await register(partner, accounts[0]!.id, a.id, "learner"),
    await register(partner, accounts[1]!.id, a.id, "learner"),
    await register(partner, accounts[2]!.id, a.id, "instructor"),
    await register(partner, accounts[3]!.id, b.id, "learner"),
  ];
  const goals: string[] = [];
  for (const [li, include] of [
    [a.id, ["lref-b"]],
    [a.id, ["mref-c1", "mref-c2"]],
    [b.id, ["lref-d"]],
  ] as const) {
    const res = await api("POST", "/v0/learning-instances/{id}/scoped-goals", {
      token,
      body: { name: "Fuzz goal", adaptive_behavior: "practice", targets: { include: [...include] }, config: { assign_to: "learners" } },
      path: { id: li },
    });
    goals.push(res.body.id);
  }
  const graphDoc = (await api("GET", "/v0/graphs/{graph_id}", { token, path: { graph_id: "gref-demo" } })).body as Json;
  const moduleUuids = (graphDoc.modules as Json[]).slice(0, 4).map((m) => m.uuid as string);
  const labels = [
    ...(graphDoc.learning_objectives as Json[]).map((o) => o.id as string),
    ...(graphDoc.modules as Json[]).map((m) => m.id as string),
    ...((graphDoc.bundles ?? []) as Json[]).map((m) => m.id as string),
    ...((graphDoc.taxonomy ?? []) as Json[]).map((t) => t.id as string),
  ];
  const ids = {
    "learning-instances": instances.map((i) => i.id as string),
    registrations: regs.map((r) => r.id as string),
    "scoped-goals": goals,
    accounts: accounts.map((x) => x.id as string),
    graphs: ["gref-demo", graph.id],
  };
  return {
    partner,
    token,
    registrations: ids.registrations,
    byField: {
      account_id: ids.accounts,
      learning_instance_id: ids["learning-instances"],
      registration_id: ids.registrations,
      goal_id: goals,
      graph_id: ids.graphs,
      module_id: [...(graphDoc.modules as Json[]).map((m) => m.id as string), ...moduleUuids],
      scope: accounts.map((x) => x.external_user_id as string),
    },
    pools: { ...ids, "*": Object.values(ids).flat() },
    strings: [
      ...Object.values(ids).flat(),
      ...labels,
      ...moduleUuids,
      ...accounts.map((x) => x.external_user_id as string),
      "gref-demo",
      "Week 3",
      "P2W",
      "PT36H",
      "post",
      "/accounts",
    ],
  };
}

async function send(op: Operation, req: FuzzRequest): Promise<{ status: number; body: any; headers: Headers; bytes: number }> {
  const headers: Record<string, string> = { ...req.headers };
  if (op.security === "bearer") headers.Authorization = `Bearer ${world.token}`;
  if (op.security === "basic") {
    headers.Authorization = `Basic ${btoa(`${world.partner.client_id}:${world.partner.client_secret}`)}`;
  }
  const body = bodyText(op, req);
  if (body !== undefined && op.body) headers["Content-Type"] = op.body.contentType;
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`${BASE}${urlOf(op, req)}`, { method: op.method, headers, body }), fuzzEnv, ctx);
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  const bytes = new TextEncoder().encode(text).length;
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, headers: res.headers, bytes };
}

/** Everything a refused request must leave as it was. */
async function snapshot(): Promise<string> {
  const events = await Promise.all(world.registrations.map((id) => eventCount(id)));
  return JSON.stringify({ rows: await rowCounts(), events });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * xAPI statements (docs/xapi.md "Validation, all or nothing"): a statement the document allows that cannot be
 * mapped to an event (a registration, module or actor that is not the partner's, another object type,
 * a duration over 7 days, a future timestamp, an id reused within the request) is a 400 naming the
 * field, by decision, not a 422. Only such 400s pass; any other 400 of a valid request still fails.
 */
const XAPI_MAPPING_FIELD = /^body(\[\d+\])?\.(id|actor|actor\.account\.name|context\.registration|object\.id|object\.objectType|result\.duration|timestamp)$/;
function xapiMappingRefusal(op: Operation, status: number, body: any): boolean {
  if (op.path !== "/v0/xapi/statements" || status !== 400 || !Array.isArray(body?.details) || body.details.length === 0) return false;
  return body.details.every((d: { path: string }) => XAPI_MAPPING_FIELD.test(d.path));
}

/** The one error body (docs/api-conventions.md "HTTP conventions"); the token endpoint's RFC 6749 body carries the same fields. */
function errorShapeProblem(op: Operation, status: number, body: any): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return `error body is not a JSON object: ${JSON.stringify(body)}`;
  const b = body as Record<string, any>;
  if (b.code !== status || typeof b.message !== "string" || typeof b.error_id !== "string" || !UUID.test(b.error_id))
    return `not the decided error shape: ${JSON.stringify(body)}`;
  const oauth = op.path === "/v0/oauth/token" && status !== 413;
  const allowed = oauth ? ["code", "message", "error_id", "error", "error_description"] : ["code", "message", "error_id", "details"];
  const extra = Object.keys(b).filter((k) => !allowed.includes(k));
  if (extra.length) return `unexpected fields ${extra.join(", ")}`;
  if (oauth && typeof b.error !== "string") return "an RFC 6749 error body without error";
  if (/\bat .*\.(ts|js):\d+/.test(JSON.stringify(body))) return "a stack trace in the body";
  return undefined;
}

function record(op: Operation, kind: "valid" | "mutated" | "maxima", status: number, mutation?: MutationKind): void {
  let entry = ledger.get(op.key);
  if (!entry) {
    entry = { valid: 0, mutated: 0, maxima: 0, statuses: new Map(), kinds: new Map() };
    ledger.set(op.key, entry);
  }
  entry[kind]++;
  const tag = `${kind === "valid" ? "v" : kind === "maxima" ? "x" : "m"}${status}`;
  entry.statuses.set(tag, (entry.statuses.get(tag) ?? 0) + 1);
  if (mutation) entry.kinds.set(mutation, (entry.kinds.get(mutation) ?? 0) + 1);
}

beforeAll(async () => {
  world = await buildWorld();
  factory = new RequestFactory(new SchemaReader(doc, { strings: world.strings, byField: world.byField }), world.pools);
  atMaxima = new RequestFactory(new SchemaReader(doc, { strings: world.strings, byField: world.byField }, Date.now(), { atMaxima: true }), world.pools);
}, 60_000);

afterAll(() => {
  const lines = [...ledger.entries()].map(([key, e]) => {
    const statuses = [...e.statuses.entries()].map(([k, n]) => `${k}:${n}`).join(" ");
    return `${key.padEnd(95)} valid ${String(e.valid).padStart(4)}  mutated ${String(e.mutated).padStart(4)}  maxima ${String(e.maxima).padStart(3)}  ${statuses}`;
  });
  console.log(`OpenAPI fuzz (seed ${SEED}): ${operations.length} operations, runs per operation:\n${lines.join("\n")}`);
});

describe(`OpenAPI fuzz: every operation of /v0/openapi.json (seed ${SEED})`, () => {
  it("the document has operations to fuzz", () => {
    expect(operations.length).toBeGreaterThanOrEqual(30);
  });

  for (const op of operations) {
    it(`${op.key}: valid requests (also at the maxima) are never 400 or 5xx; mutated ones are 400/413/422; refusals change nothing`, {
      timeout: 60_000 + 2_000 * (VALID_RUNS + MUTATED_RUNS) + 20_000 * MAXIMA_RUNS,
    }, async () => {
      const validRequests = factory.valid(op);
      await fc.assert(
        fc.asyncProperty(validRequests, async (req) => {
          const before = await snapshot();
          const res = await send(op, req);
          record(op, "valid", res.status);
          const where = `${op.key} ${urlOf(op, req)} ${String(bodyText(op, req)).slice(0, 400)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`;
          if (res.status >= 500) throw new Error(`5xx for a valid request: ${where}`);
          const semanticOauth = op.path === "/v0/oauth/token" && res.status === 400 && ["invalid_scope", "invalid_grant"].includes(res.body?.error);
          if (res.status === 400 && !semanticOauth && !xapiMappingRefusal(op, res.status, res.body))
            throw new Error(`400 for a request the document allows: ${where}`);
          if (res.status === 413 || res.status === 429) throw new Error(`unexpected ${res.status}: ${where}`);
          if (res.status >= 400) {
            const problem = errorShapeProblem(op, res.status, res.body);
            if (problem) throw new Error(`${problem}: ${where}`);
            if ((await snapshot()) !== before) throw new Error(`a refused request changed data: ${where}`);
          }
        }),
        { numRuns: VALID_RUNS, seed: SEED, endOnFailure: true },
      );

      await fc.assert(
        fc.asyncProperty(atMaxima.valid(op), async (req) => {
          const before = await snapshot();
          const res = await send(op, req);
          record(op, "maxima", res.status);
          const body = bodyText(op, req);
          const where = `${op.key} at maxima ${urlOf(op, req).slice(0, 300)} ${String(body).slice(0, 300)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`;
          const size = body === undefined ? 0 : typeof body === "string" ? new TextEncoder().encode(body).length : body.length;
          if (res.status >= 500) throw new Error(`5xx for a request at the maxima: ${where}`);
          const semanticOauth = op.path === "/v0/oauth/token" && res.status === 400 && ["invalid_scope", "invalid_grant"].includes(res.body?.error);
          if (res.status === 400 && !semanticOauth && !xapiMappingRefusal(op, res.status, res.body))
            throw new Error(`400 for a request the document allows: ${where}`);
          if (res.status === 413 && size <= bodyLimitOf(op)) throw new Error(`413 for a body within the limit (${size} bytes): ${where}`);
          if (res.status === 429) throw new Error(`unexpected 429: ${where}`);
          if (res.bytes > MAX_ANSWER_BYTES) throw new Error(`an answer of ${res.bytes} bytes, over 10 MB: ${where}`);
          if (res.status >= 400) {
            const problem = errorShapeProblem(op, res.status, res.body);
            if (problem) throw new Error(`${problem}: ${where}`);
            if ((await snapshot()) !== before) throw new Error(`a refused request changed data: ${where}`);
          }
        }),
        { numRuns: MAXIMA_RUNS, seed: SEED + 2, endOnFailure: true },
      );

      const kinds = factory.mutationKinds(op, SEED);
      if (kinds.length === 0) return;
      await fc.assert(
        fc.asyncProperty(factory.mutated(op, kinds), async ({ kind, request }) => {
          const before = await snapshot();
          const res = await send(op, request);
          record(op, "mutated", res.status, kind);
          const where = `${op.key} [${kind}] ${urlOf(op, request).slice(0, 300)} ${String(bodyText(op, request)).slice(0, 300)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`;
          if (![400, 413, 422].includes(res.status)) throw new Error(`a mutated request was not refused with 400/413/422: ${where}`);
          const problem = errorShapeProblem(op, res.status, res.body);
          if (problem) throw new Error(`${problem}: ${where}`);
          if ((await snapshot()) !== before) throw new Error(`a refused request changed data: ${where}`);
        }),
        { numRuns: MUTATED_RUNS, seed: SEED + 1, endOnFailure: true },
      );
    });
  }
});
