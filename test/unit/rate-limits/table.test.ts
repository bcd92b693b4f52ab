import { describe, expect, it } from "vitest";
import { callerRules } from "../../../src/http/caller-rules";
import { RATE_WINDOW_MS, type RateLimitRule, rateLimitFor, rateLimits, routeShape } from "../../../src/rate-limits/table";
import { METRICS as API_METRICS } from "../../../src/schemas/metrics";

/**
 * Spec section 8.2 (the interface specification's rate-limit table; docs/rate-limits.md "The
 * table"), copied verbatim (tests run inside workerd and cannot read files). If the spec changes,
 * paste the new table here: the test then says which code rows disagree.
 */
const SPEC_8_2 = `
| Endpoint | Limit |
|---|---|
| POST /accounts | 750/min/token |
| POST /batch | 90/min/token |
| GET /accounts/current | 15/min/token |
| GET /accounts/{id} | 15/min/token |
| DELETE /accounts/{id} | 150/min/token |
| POST /registrations | 375/min/token |
| GET /registrations/{id} | 15/min/token |
| DELETE /registrations/{id} | 375/min/token |
| POST /learning-instances | 750/min/token |
| GET /learning-instances | 15/min/token |
| GET /learning-instances/{id} | 15/min/token |
| GET /learning-instances/{id}/registrations | 15/min/token |
| POST /learning-instances/{id}/scoped-goals | 90/min/token |
| PUT /learning-instances/{id}/scoped-goals/{goal_id} | 90/min/token |
| PUT goal assignment for one registration | 135/min/token |
| PUT goal assignment, batch | 10 assigns/min/token or 100 unassigns/min/token |
| GET goal assignment check | 15/min/token |
| DELETE goal assignment | 135/min/token |
| POST /registrations/{id}/ungraded-events | 15/min/token |
| POST /registrations/{id}/graded-events | 15/min/token |
| POST /registrations/{id}/focus-events | 15/min/token |
| POST /registrations/{id}/recommendation-followed-events | 15/min/token |
| POST /registrations/{id}/batch-events | 15/min/token |
| GET /registrations/{id}/recommendation | 15/min/token |
| POST metrics expected-score, readiness-forecast, active-time, proficiency (learning instance or registration, path ending /rows) | 225/min/token |
| POST /accounts/metrics/predicted-score | 140/min/partner |
| POST /learning-instances/{id}/metrics/status-and-progress | 225/min/token |
| POST /registrations/{id}/metrics/status-and-progress | 225/min/token |
| POST /learning-instances/{id}/metrics/groups | 25/min/token |
`;

const LI = "/v0/learning-instances";
const REG = "/v0/registrations";
const ASSIGN = `${LI}/{id}/scoped-goals/{goal_id}/registrations`;
const METRICS = ["expected-score", "readiness-forecast", "active-time", "proficiency"];

/** The spec's wording of each row -> the route keys it names (code table keys). */
const SPEC_TO_ROUTES: Record<string, string[]> = {
  "POST /accounts": ["POST /v0/accounts"],
  "POST /batch": ["POST /v0/batch"],
  "GET /accounts/current": ["GET /v0/accounts/current"],
  "GET /accounts/{id}": ["GET /v0/accounts/{account_id}"],
  "DELETE /accounts/{id}": ["DELETE /v0/accounts/{account_id}"],
  "POST /registrations": ["POST /v0/registrations"],
  "GET /registrations/{id}": ["GET /v0/registrations/{reg_id}"],
  "DELETE /registrations/{id}": ["DELETE /v0/registrations/{reg_id}"],
  "POST /learning-instances": ["POST /v0/learning-instances"],
  "GET /learning-instances": ["GET /v0/learning-instances"],
  "GET /learning-instances/{id}": ["GET /v0/learning-instances/{id}"],
  "GET /learning-instances/{id}/registrations": ["GET /v0/learning-instances/{li_id}/registrations"],
  "POST /learning-instances/{id}/scoped-goals": [`POST ${LI}/{id}/scoped-goals`],
  "PUT /learning-instances/{id}/scoped-goals/{goal_id}": [`PUT ${LI}/{id}/scoped-goals/{goal_id}`],
  "PUT goal assignment for one registration": [`PUT ${ASSIGN}/{registration_id}`],
  "PUT goal assignment, batch": [`PUT ${ASSIGN}`],
  "GET goal assignment check": [`GET ${ASSIGN}/{registration_id}`],
  "DELETE goal assignment": [`DELETE ${ASSIGN}/{registration_id}`],
  "POST /registrations/{id}/ungraded-events": [`POST ${REG}/{id}/ungraded-events`],
  "POST /registrations/{id}/graded-events": [`POST ${REG}/{id}/graded-events`],
  "POST /registrations/{id}/focus-events": [`POST ${REG}/{id}/focus-events`],
  "POST /registrations/{id}/recommendation-followed-events": [`POST ${REG}/{id}/recommendation-followed-events`],
  "POST /registrations/{id}/batch-events": [`POST ${REG}/{id}/batch-events`],
  "GET /registrations/{id}/recommendation": [`GET ${REG}/{id}/recommendation`],
  "POST metrics expected-score, readiness-forecast, active-time, proficiency (learning instance or registration, path ending /rows)": METRICS.flatMap((m) => [
    `POST ${LI}/{id}/metrics/${m}/rows`,
    `POST ${REG}/{id}/metrics/${m}/rows`,
  ]),
  "POST /accounts/metrics/predicted-score": ["POST /v0/accounts/metrics/predicted-score"],
  "POST /learning-instances/{id}/metrics/status-and-progress": [`POST ${LI}/{id}/metrics/status-and-progress`],
  "POST /registrations/{id}/metrics/status-and-progress": [`POST ${REG}/{id}/metrics/status-and-progress`],
  "POST /learning-instances/{id}/metrics/groups": [`POST ${LI}/{id}/metrics/groups`],
};

/** "750/min/token" | "140/min/partner" | "10 assigns/min/token or 100 unassigns/min/token" -> a rule. */
function parseLimit(text: string): RateLimitRule {
  const simple = /^(\d+)\/min\/(token|partner)$/.exec(text);
  if (simple) return { kind: simple[2] as "token" | "partner", limit: Number(simple[1]) };
  const actions = /^(\d+) assigns\/min\/token or (\d+) unassigns\/min\/token$/.exec(text);
  if (actions) return { kind: "token", limit: Number(actions[1]), actions: { assign: Number(actions[1]), unassign: Number(actions[2]) } };
  throw new Error(`unparsed limit: ${text}`);
}

function specRows(): Array<{ endpoint: string; limit: string }> {
  return SPEC_8_2.trim()
    .split("\n")
    .slice(2) // header and separator
    .map((line) => line.split("|").map((cell) => cell.trim()))
    .map(([, endpoint = "", limit = ""]) => ({ endpoint, limit }));
}

describe("rate-limit table (spec 8.2)", () => {
  it("has every spec row, with the spec's limit, and nothing else", () => {
    const rows = specRows();
    expect(rows).toHaveLength(29);
    const expected: Record<string, RateLimitRule> = {};
    for (const row of rows) {
      const routes = SPEC_TO_ROUTES[row.endpoint];
      expect(routes, `no mapping for spec row "${row.endpoint}"`).toBeDefined();
      for (const route of routes ?? []) expected[route] = parseLimit(row.limit);
    }
    expect(Object.keys(SPEC_TO_ROUTES).sort()).toEqual(rows.map((r) => r.endpoint).sort());
    expect(rateLimits).toEqual(expected);
  });

  it("xAPI statements (not in 8.2) count in the batch-events window of each registration named (docs/xapi.md)", () => {
    for (const key of ["POST /v0/xapi/statements", "PUT /v0/xapi/statements"]) {
      expect(rateLimitFor(key), key).toEqual({ kind: "token", limit: 15, countsIn: "POST /v0/registrations/{id}/batch-events" });
    }
    expect(rateLimitFor("POST /v0/registrations/{id}/batch-events")?.limit).toBe(15);
  });

  it("every window is 60 s", () => {
    expect(RATE_WINDOW_MS).toBe(60_000);
  });

  it("no two rows share a route shape, so lookup by shape is unambiguous", () => {
    const shapes = Object.keys(rateLimits).map(routeShape);
    expect(new Set(shapes).size).toBe(shapes.length);
  });

  it("routes join by shape whatever their parameter names", () => {
    expect(rateLimitFor("POST /v0/registrations/{reg_id}/graded-events")).toEqual({ kind: "token", limit: 15 });
    expect(rateLimitFor("PUT /v0/learning-instances/{learning_instance_id}/scoped-goals/{goal_id}/registrations/{reg_id}")).toEqual({
      kind: "token",
      limit: 135,
    });
    expect(rateLimitFor("POST /v0/learning-instances/{li_id}/metrics/status-and-progress")).toEqual({ kind: "token", limit: 225 });
    expect(rateLimitFor("PUT /v0/learning-instances/{id}")).toBeUndefined();
    expect(rateLimitFor("GET /v0/graphs")).toBeUndefined();
  });

  it("every metric of the API has its two rows (the table lists the metrics again: it imports nothing)", () => {
    for (const m of API_METRICS) {
      expect(rateLimitFor(`POST /v0/learning-instances/{id}/metrics/${m}/rows`), m).toEqual({ kind: "token", limit: 225 });
      expect(rateLimitFor(`POST /v0/registrations/{id}/metrics/${m}/rows`), m).toEqual({ kind: "token", limit: 225 });
    }
  });

  it("every existing route named in spec 8.2 finds its row", () => {
    const routes = Object.keys(callerRules);
    for (const key of Object.keys(rateLimits)) {
      const route = routes.find((r) => routeShape(r) === routeShape(key));
      if (route) expect(rateLimitFor(route), route).toBe(rateLimits[key]);
    }
    // the roster routes are all there
    for (const key of ["POST /v0/accounts", "GET /v0/accounts/current", "GET /v0/registrations/{reg_id}", "GET /v0/learning-instances/{li_id}/registrations"]) {
      expect(rateLimitFor(key), key).toBeDefined();
    }
  });
});
