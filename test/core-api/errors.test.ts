import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Json, tokenRequest, uniqueId } from "../support/api";
import { type ApiResponse, BASE, rawCall } from "../support/raw-call";
import { api } from "../support/typed-api";
import { expectErrorBody, type Fixture, newFixture } from "./fixture";

let fx: Fixture;
beforeAll(async () => {
  fx = await newFixture();
});

/** Every roster endpoint (ROSTER_ROUTE) with ids of existing resources of partner A (so a bad body is the only problem). */
function endpoints(): { method: string; path: string; hasBody: boolean }[] {
  const w = fx.world;
  return [
    { method: "POST", path: "/v0/accounts", hasBody: true },
    { method: "POST", path: "/v0/batch", hasBody: true },
    { method: "POST", path: "/v0/learning-instances", hasBody: true },
    { method: "PUT", path: `/v0/learning-instances/${w.li.id}`, hasBody: true },
    { method: "POST", path: "/v0/registrations", hasBody: true },
  ];
}

const BAD_BODIES: [string, string | undefined][] = [
  ["malformed JSON", '{"external_user_id": '],
  ["trailing garbage", '{"a": 1} x'],
  ["single quotes", "{'a': 1}"],
  ["empty body", ""],
  ["null", "null"],
  ["array", "[]"],
  ["string", '"text"'],
  ["number", "42"],
  ["true", "true"],
  ["NUL bytes", '{"external_user_id": "\u0000"}'.replace("\\u0000", "\u0000")],
  ["deep nesting", "[".repeat(5000) + "]".repeat(5000)],
  ["huge number", `{"name": 1e999999}`],
  ["wrong shapes", '{"external_user_id": {}, "name": [], "graph_id": {}, "requests": {}, "account_id": [], "type": 1}'],
  ["__proto__", '{"__proto__": {"admin": true}, "constructor": {"prototype": {}}, "name": {"toString": 1}}'],
];

describe("error bodies and statuses", () => {
  it("every malformed body on every endpoint is a 4xx with the error body (never a 500) and changes nothing", async () => {
    const before = (await api("GET", "/v0/learning-instances", { token: fx.a.adminToken, query: { limit: 500 } })).body as Json[];
    const failures: string[] = [];
    for (const ep of endpoints()) {
      for (const [label, raw] of BAD_BODIES) {
        for (const contentType of ["application/json", "text/plain", undefined]) {
          const headers: Record<string, string> = contentType ? { "Content-Type": contentType } : {};
          const res = await rawCall(ep.method, ep.path, { token: fx.a.adminToken, raw, headers });
          const where = `${ep.method} ${ep.path} ${label} ${contentType}: ${res.status} ${JSON.stringify(res.body)}`;
          if (res.status !== 400) failures.push(where);
          else expectErrorBody(res, 400);
        }
      }
    }
    expect(failures).toEqual([]);
    const after = (await api("GET", "/v0/learning-instances", { token: fx.a.adminToken, query: { limit: 500 } })).body as Json[];
    expect(after).toEqual(before);
  });

  it("malformed path ids and query strings are 400 (never a 500), with the path named", async () => {
    const t = fx.a.adminToken;
    const badIds = ["%E0%A4%A", "%ZZ", "%", "..%2F..%2Fetc", "%00", "1%20OR%201%3D1", "a".repeat(2000), "\u00e9t\u00e9"];
    const failures: string[] = [];
    for (const bad of badIds) {
      for (const [method, template, param] of [
        ["GET", "/v0/accounts/{}", "path.account_id"],
        ["DELETE", "/v0/accounts/{}", "path.account_id"],
        ["GET", "/v0/learning-instances/{}", "path.id"],
        ["PUT", "/v0/learning-instances/{}", "path.id"],
        ["DELETE", "/v0/learning-instances/{}", "path.id"],
        ["GET", "/v0/learning-instances/{}/registrations", "path.li_id"],
        ["GET", "/v0/registrations/{}", "path.reg_id"],
        ["DELETE", "/v0/registrations/{}", "path.reg_id"],
      ] as const) {
        const path = template.replace("{}", bad);
        const res = await rawCall(method, path, { token: t, body: method === "PUT" ? { name: "x" } : undefined });
        if (res.status !== 400 && res.status !== 404) failures.push(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
        else if (res.status === 400) {
          expectErrorBody(res, 400);
          if (!(res.body.details ?? []).some((d: Json) => d.path === param)) failures.push(`${method} ${path}: no detail ${param}`);
        } else expectErrorBody(res, 404);
      }
    }
    for (const q of ["limit=%ZZ", "type=%E0%A4%A", "offset=%"]) {
      const res = await rawCall("GET", `/v0/learning-instances/${fx.world.li.id}/registrations?${q}`, { token: t });
      if (res.status !== 400 && res.status !== 200) failures.push(`query ${q}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(failures).toEqual([]);
  });

  it("malformed JSON is 400 with the decided body", async () => {
    const res = await rawCall("POST", "/v0/accounts", { token: fx.a.adminToken, raw: "{nope", headers: { "Content-Type": "application/json" } });
    expectErrorBody(res, 400);
  });

  it("validation failures carry details with path and message", async () => {
    const res = await rawCall("POST", "/v0/registrations", {
      token: fx.a.adminToken,
      body: { account_id: "x", learning_instance_id: fx.world.li.id, type: "boss" },
    });
    expectErrorBody(res, 400);
    const paths = (res.body.details as Json[]).map((d) => d.path).sort();
    expect(paths).toEqual(["body.account_id", "body.type"]);
  });

  it("a field that fails several checks for one reason is reported once, with its own limit", async () => {
    const w = fx.world;
    const reg = `/v0/registrations/${w.ownerReg.id}`;
    const ago = new Date(Date.now() - 60_000).toISOString();
    const range = "must lie between 1970-01-01T00:00:00Z and 2100-12-31T23:59:59Z";
    const statement = {
      actor: { objectType: "Agent", account: { homePage: "https://lms.example.edu", name: w.ownerAccount.external_user_id } },
      verb: { id: "http://adlnet.gov/expapi/verbs/answered" },
      object: { objectType: "Activity", id: "https://lms.example.edu/activities/mref-a1" },
      result: { success: true },
      context: { registration: w.ownerReg.id },
    };
    const cases: [string, unknown, Record<string, string>, string, string | RegExp][] = [
      ["/v0/learning-instances", { graph_id: w.li.graph_id, name: "old", start_date: "1969-12-31T00:00:00Z" }, {}, "body.start_date", range],
      ["/v0/learning-instances", { graph_id: w.li.graph_id, name: "late", end_date: "2101-01-01T00:00:00Z" }, {}, "body.end_date", range],
      ["/v0/learning-instances", { graph_id: w.li.graph_id, name: "vague", start_date: "yesterday" }, {}, "body.start_date", "must be an ISO 8601 date-time"],
      [
        `${reg}/graded-events`,
        { module_id: "mref-a1", interaction_end_time: "1969-12-31T23:59:59Z", is_correct: true },
        {},
        "body.interaction_end_time",
        range,
      ],
      [`${reg}/graded-events`, { module_id: "mref-a1", interaction_end_time: ago, is_correct: true, duration: 1e20 }, {}, "body.duration", /<=604800000$/],
      [
        `${reg}/recommendation-followed-events`,
        { module_id: "mref-a1", time_followed: "1969-12-31T23:59:59Z", recommendation_id: 1 },
        {},
        "body.time_followed",
        range,
      ],
      [
        `${reg}/recommendation-followed-events`,
        { module_id: "mref-a1", time_followed: ago, recommendation_id: 2 ** 60 },
        {},
        "body.recommendation_id",
        /<=9007199254740991$/,
      ],
      [`${reg}/recommendation-followed-events`, { module_id: "mref-a1", time_followed: ago, recommendation_id: -1e20 }, {}, "body.recommendation_id", />=0$/],
      [
        `/v0/learning-instances/${w.li.id}/scoped-goals`,
        { name: "Goal", adaptive_behavior: "practice", targets: { include: ["lref-a"] }, timing: { end: "1969-12-31T00:00:00Z" } },
        {},
        "body.timing.end",
        range,
      ],
      ["/v0/xapi/statements", { ...statement, timestamp: "1969-12-31T23:59:59Z" }, { "X-Experience-API-Version": "1.0.3" }, "body.timestamp", range],
    ];
    for (const [path, body, headers, detailPath, message] of cases) {
      const res = await rawCall("POST", path, { token: await fx.a.tokenFor(fx.a.admin_external_user_id), body, headers });
      expectErrorBody(res, 400);
      expect(res.body.details, `${path} ${JSON.stringify(body)}`).toEqual([
        { path: detailPath, message: typeof message === "string" ? message : expect.stringMatching(message) },
      ]);
    }
  });

  it("unknown routes are a JSON 404, with or without a token", async () => {
    for (const [method, path] of [
      ["GET", "/"],
      ["GET", "/v0"],
      ["GET", "/v0/nope"],
      ["POST", "/v0/accounts/current/extra"],
      ["GET", "/v1/accounts/current"],
      ["PATCH", `/v0/accounts/${fx.owner.account.id}`],
      ["PUT", "/v0/accounts"],
      ["DELETE", "/v0/learning-instances"],
    ] as const) {
      for (const token of [undefined, fx.a.adminToken]) {
        const res = await rawCall(method, path, { token });
        expectErrorBody(res, 404);
        expect(res.headers.get("x-request-id")).toBeTruthy();
      }
    }
  });

  it("a body over 1 MiB is 413 on every body-taking endpoint and creates nothing", async () => {
    const ext = uniqueId("big");
    const big = JSON.stringify({ external_user_id: ext, padding: "x".repeat(1024 * 1024) });
    for (const ep of endpoints()) {
      const res = await rawCall(ep.method, ep.path, { token: fx.a.adminToken, raw: big, headers: { "Content-Type": "application/json" } });
      expectErrorBody(res, 413);
    }
    // also on the token endpoint, and without a token
    const token = await rawCall("POST", "/v0/oauth/token", {
      raw: `a=${"x".repeat(1024 * 1024 + 1)}`,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(token.status).toBe(413);
    expect((await rawCall("POST", "/v0/accounts", { raw: big, headers: { "Content-Type": "application/json" } })).status).toBe(413);
    await createAccount(fx.a, ext); // the oversized create did not take the id
  });

  it("a streamed body over 1 MiB (no Content-Length) is 413 too", async () => {
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 20) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    const res = await SELF.fetch(`${BASE}/v0/accounts`, {
      method: "POST",
      headers: { Authorization: `Bearer ${fx.a.adminToken}`, "Content-Type": "application/json" },
      body: stream,
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as Json).code).toBe(413);
  });

  it("a body just under 1 MiB is accepted for processing", async () => {
    const ext = uniqueId("almost");
    const raw = JSON.stringify({ external_user_id: ext, padding: "x".repeat(1024 * 1024 - 200) });
    const res = await rawCall("POST", "/v0/accounts", { token: fx.a.adminToken, raw, headers: { "Content-Type": "application/json" } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});

describe("request tracing", () => {
  async function samples(): Promise<[string, ApiResponse][]> {
    const label = { "Request-Label": "trace-me-42" };
    return [
      ["200", await api("GET", "/v0/accounts/current", { token: fx.a.adminToken, headers: label })],
      ["201", await api("POST", "/v0/accounts", { token: fx.a.adminToken, body: { external_user_id: uniqueId() }, headers: label })],
      [
        "204",
        await api("DELETE", "/v0/accounts/{account_id}", { token: fx.a.adminToken, headers: label, path: { account_id: (await createAccount(fx.a)).id } }),
      ],
      ["400", await api("GET", "/v0/accounts/{account_id}", { token: fx.a.adminToken, headers: label, path: { account_id: "abc" } })],
      ["400 json", await rawCall("POST", "/v0/accounts", { token: fx.a.adminToken, raw: "{", headers: { ...label, "Content-Type": "application/json" } })],
      ["401", await api("GET", "/v0/accounts/current", { headers: label })],
      ["403", await api("POST", "/v0/accounts", { token: fx.owner.token, body: { external_user_id: uniqueId() }, headers: label })],
      ["404", await api("GET", "/v0/accounts/{account_id}", { token: fx.a.adminToken, headers: label, path: { account_id: crypto.randomUUID() } })],
      ["404 route", await rawCall("GET", "/v0/nowhere", { headers: label })],
      [
        "413",
        await rawCall("POST", "/v0/accounts", {
          token: fx.a.adminToken,
          raw: "x".repeat(1024 * 1024 + 1),
          headers: { ...label, "Content-Type": "application/json" },
        }),
      ],
      ["422", await api("POST", "/v0/accounts", { token: fx.a.adminToken, body: { external_user_id: fx.owner.account.external_user_id }, headers: label })],
      ["oauth 200", await tokenRequestWith(fx.a.client_id, fx.a.client_secret, label)],
      ["oauth 401", await tokenRequestWith(fx.a.client_id, "wrong", label)],
      ["openapi", await rawCall("GET", "/v0/openapi.json", { headers: label })],
      ["docs", await rawCall("GET", "/docs", { headers: label })],
    ];
  }

  async function tokenRequestWith(clientId: string, secret: string, headers: Record<string, string>): Promise<ApiResponse> {
    return rawCall("POST", "/v0/oauth/token", {
      raw: new URLSearchParams({ grant_type: "client_credentials", scope: fx.a.admin_external_user_id }).toString(),
      headers: { ...headers, Authorization: `Basic ${btoa(`${clientId}:${secret}`)}`, "Content-Type": "application/x-www-form-urlencoded" },
    });
  }

  it("every response carries X-Request-Id (distinct per request) and echoes Request-Label", async () => {
    const seen = new Set<string>();
    for (const [what, res] of await samples()) {
      const id = res.headers.get("x-request-id");
      expect(id, what).toBeTruthy();
      seen.add(id!);
      expect(res.headers.get("request-label"), what).toBe("trace-me-42");
    }
    expect(seen.size).toBe(15);
  });

  it("no Request-Label header in, none out", async () => {
    const res = await api("GET", "/v0/accounts/current", { token: fx.a.adminToken });
    expect(res.headers.get("request-label")).toBeNull();
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  it("OAuth errors are RFC 6749 bodies and still carry the request id", async () => {
    const res = await tokenRequest(fx.a.client_id, fx.a.client_secret, { grant_type: "nope" });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("unsupported_grant_type");
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });
});
