import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { expectErrorBody, expectValidation } from "../core-api/fixture";
import { createAccount, createInstance, ensureDemoGraph, freshAdminToken, type Json, newPartner, type Partner, register, uniqueId } from "../support/api";
import { demoGraph } from "../support/demo-graph";
import { type ApiResponse, BASE, rawCall } from "../support/raw-call";
import { api } from "../support/typed-api";

/**
 * docs/security.md "Controls": request bodies are UTF-8 or 400; identifiers a partner chooses carry
 * no control, bidi-formatting or zero-width characters (400 with the path); names and free text may
 * hold line breaks and tabs but none of the others; event times before 1970 are 400.
 */

let p: Partner;
let li: Json;
let reg: Json;
let goalId: string;
let ip = 0;
beforeAll(async () => {
  p = await newPartner("Input hygiene");
  li = await createInstance(p);
  reg = await register(p, (await createAccount(p)).id, li.id, "learner");
  const goal = await api("POST", "/v0/learning-instances/{id}/scoped-goals", {
    token: await freshAdminToken(p),
    body: { name: "Goal", adaptive_behavior: "practice", targets: { include: ["lref-a"] } },
    path: { id: li.id },
  });
  expect(goal.status).toBe(201);
  goalId = goal.body.id;
});

async function sendBytes(method: string, path: string, bytes: Uint8Array, headers: Record<string, string>): Promise<ApiResponse> {
  const res = await SELF.fetch(`${BASE}${path}`, { method, headers, body: bytes });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body };
}

/** The JSON text with the marker `@@` replaced by raw bytes (e.g. Latin-1 é = 0xE9, not UTF-8). */
function withBytes(json: string, bytes: number[]): Uint8Array {
  const [before, after] = json.split("@@") as [string, string];
  const enc = new TextEncoder();
  return new Uint8Array([...enc.encode(before), ...bytes, ...enc.encode(after)]);
}

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

describe("request bodies must be valid UTF-8", () => {
  const INVALID = [
    [0xe9], // Latin-1 é
    [0xe8],
    [0xc3], // truncated two-byte sequence
    [0xed, 0xa0, 0x80], // an encoded surrogate (CESU-8)
    [0xc0, 0xaf], // overlong '/'
    [0xff],
  ];

  function bodies(): [string, string, string][] {
    const graph = JSON.stringify({ ...demoGraph(`gref-utf-${uniqueId()}`), name: "Graph @@" });
    return [
      ["POST", "/v0/accounts", '{"external_user_id":"jos@@"}'],
      ["POST", "/v0/batch", '{"requests":[{"method":"post","relative_url":"/accounts","body":{"external_user_id":"jos@@"}}]}'],
      ["POST", "/v0/learning-instances", '{"graph_id":"gref-demo","name":"Cours @@"}'],
      ["PUT", `/v0/learning-instances/${li.id}`, '{"name":"Cours @@"}'],
      ["POST", "/v0/graphs", graph],
      ["POST", "/v0/graphs/validate", graph],
      ["PUT", "/v0/graphs/gref-demo", JSON.stringify({ ...demoGraph(), name: "Demo @@" })],
      ["POST", `/v0/learning-instances/${li.id}/scoped-goals`, '{"name":"Goal @@","adaptive_behavior":"practice","targets":{"include":["lref-a"]}}'],
      ["PUT", `/v0/learning-instances/${li.id}/scoped-goals/${goalId}`, '{"name":"Goal @@","adaptive_behavior":"practice","targets":{"include":["lref-a"]}}'],
      ["PUT", `/v0/learning-instances/${li.id}/scoped-goals/${goalId}/registrations`, '{"action":"assign","registration_type":"learner@@"}'],
      [
        "POST",
        `/v0/registrations/${reg.id}/graded-events`,
        `{"module_id":"mref-a1","interaction_end_time":"${minutesAgo(1)}","is_correct":true,"instance_hash":"h@@"}`,
      ],
      ["POST", `/v0/registrations/${reg.id}/ungraded-events`, `{"module_id":"mref-a3@@","interaction_end_time":"${minutesAgo(1)}"}`],
      ["POST", "/v0/registrations", `{"account_id":"${crypto.randomUUID()}@@","learning_instance_id":"${li.id}","type":"learner"}`],
    ];
  }

  it("on every JSON endpoint: 400 in the decided error shape, nothing stored, no replacement character", async () => {
    const failures: string[] = [];
    for (const [method, path, json] of bodies()) {
      for (const bytes of INVALID) {
        const res = await sendBytes(method, path, withBytes(json, bytes), {
          Authorization: `Bearer ${await freshAdminToken(p)}`,
          "Content-Type": "application/json",
        });
        if (res.status !== 400) failures.push(`${method} ${path} ${bytes}: ${res.status} ${JSON.stringify(res.body)}`);
        else {
          expectErrorBody(res, 400);
          expect(res.body.details).toEqual([{ path: "body", message: expect.stringMatching(/UTF-8/) }]);
        }
      }
    }
    expect(failures).toEqual([]);
    // The Latin-1 id was not stored as "jos\uFFFD": that id is still free.
    expect((await api("POST", "/v0/accounts", { token: await freshAdminToken(p), body: { external_user_id: "jos\uFFFD" } })).status).toBe(201);
  });

  it("valid multi-byte UTF-8 (and a byte order mark) is accepted", async () => {
    const id = `José-名前-😀-${uniqueId()}`;
    const res = await sendBytes("POST", "/v0/accounts", new TextEncoder().encode(`\uFEFF${JSON.stringify({ external_user_id: id })}`), {
      Authorization: `Bearer ${await freshAdminToken(p)}`,
      "Content-Type": "application/json",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.external_user_id).toBe(id);
  });

  function tokenBody(form: Uint8Array | string): Promise<ApiResponse> {
    return sendBytes("POST", "/v0/oauth/token", typeof form === "string" ? new TextEncoder().encode(form) : form, {
      Authorization: `Basic ${btoa(`${p.client_id}:${p.client_secret}`)}`,
      "Content-Type": "application/x-www-form-urlencoded",
      "CF-Connecting-IP": `192.0.2.${++ip}`,
    });
  }

  it("the token endpoint: invalid percent-encoded UTF-8 and raw invalid bytes are 400 invalid_request (RFC 6749 body with code, message, error_id)", async () => {
    const latin1 = await createAccount(p, `jos\uFFFD-${uniqueId()}`);
    for (const form of [
      "grant_type=client_credentials&scope=jos%E8",
      "grant_type=client_credentials&scope=jos%E9",
      `grant_type=client_credentials&scope=${encodeURIComponent(latin1.external_user_id).replace("%EF%BF%BD", "%E9")}`,
      "grant_type=client_credentials&scope=%C3",
      "grant_type=client_credentials&scope=%ED%A0%80",
      "grant_type=refresh_token&refresh_token=abc%FF",
      "grant_type=client%E8&scope=x",
      withBytes("grant_type=client_credentials&scope=jos@@", [0xe8]),
    ]) {
      const res = await tokenBody(form);
      expect(res.status, `${form}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body).toMatchObject({ error: "invalid_request", code: 400, message: expect.stringMatching(/UTF-8/), error_id: expect.any(String) });
      expect(res.headers.get("cache-control")).toMatch(/no-store/);
    }
  });

  it("the token endpoint still takes valid percent-encoded UTF-8", async () => {
    const account = await createAccount(p, `Zoë-${uniqueId()}`);
    const res = await tokenBody(`grant_type=client_credentials&scope=${encodeURIComponent(account.external_user_id)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.scope).toBe(account.external_user_id);
  });
});

/** Characters no partner-chosen identifier may contain, and names neither (docs/security.md "Controls"). */
const FORBIDDEN: [string, string][] = [
  ["NUL", "\u0000"],
  ["BEL", "\u0007"],
  ["ESC", "\u001B"],
  ["DEL", "\u007F"],
  ["C1 NEL", "\u0085"],
  ["C1 CSI", "\u009B"],
  ["LRE", "\u202A"],
  ["RLO", "\u202E"],
  ["LRI", "\u2066"],
  ["PDI", "\u2069"],
  ["ZWSP", "\u200B"],
  ["ZWJ", "\u200D"],
  ["WJ", "\u2060"],
  ["BOM", "\uFEFF"],
  ["lone surrogate", "\uD800"],
];
/** Allowed in names and free text, refused in identifiers. */
const LAYOUT: [string, string][] = [
  ["TAB", "\t"],
  ["LF", "\n"],
  ["CR", "\r"],
];

describe("identifiers a partner chooses refuse control, bidi-formatting and zero-width characters", () => {
  const event = (module_id: string, extra: Json = {}) => ({ module_id, interaction_end_time: minutesAgo(1), is_correct: true, ...extra });
  const goalBody = (patch: Json) => ({ name: "Goal", adaptive_behavior: "practice", targets: { include: ["lref-a"] }, ...patch });
  const graphWith = (mutate: (g: Json) => void) => {
    const g = structuredClone(demoGraph(`gref-id-${uniqueId()}`)) as Json;
    mutate(g);
    return g;
  };

  /** [what, method, path, body built from the bad value, the detail path] */
  const cases = (bad: (s: string) => string): [string, string, string, unknown, string][] => {
    const goals = `/v0/learning-instances/${li.id}/scoped-goals`;
    return [
      ["external_user_id", "POST", "/v0/accounts", { external_user_id: bad("student") }, "body.external_user_id"],
      [
        "batch external_user_id",
        "POST",
        "/v0/batch",
        { requests: [{ method: "post", relative_url: "/accounts", body: { external_user_id: bad("s") } }] },
        "body.requests[0].body.external_user_id",
      ],
      ["graph label", "POST", "/v0/graphs", graphWith((g) => (g.label = bad(g.label))), "body.label"],
      ["graph label (validate)", "POST", "/v0/graphs/validate", graphWith((g) => (g.label = bad(g.label))), "body.label"],
      ["objective id", "POST", "/v0/graphs", graphWith((g) => (g.learning_objectives[0].id = bad("lref-a"))), "body.learning_objectives[0].id"],
      [
        "prerequisite",
        "POST",
        "/v0/graphs",
        graphWith((g) => (g.learning_objectives[1].prerequisites[0] = bad("lref-a"))),
        "body.learning_objectives[1].prerequisites[0]",
      ],
      ["module id", "POST", "/v0/graphs", graphWith((g) => (g.modules[0].id = bad("mref-a1"))), "body.modules[0].id"],
      [
        "module objective",
        "POST",
        "/v0/graphs",
        graphWith((g) => (g.modules[0].learning_objectives[0] = bad("lref-a"))),
        "body.modules[0].learning_objectives[0]",
      ],
      ["bundle id", "POST", "/v0/graphs", graphWith((g) => (g.bundles[0].id = bad("mref-set-a"))), "body.bundles[0].id"],
      ["bundle member", "POST", "/v0/graphs", graphWith((g) => (g.bundles[0].modules[0] = bad("mref-a1"))), "body.bundles[0].modules[0]"],
      ["taxon id", "POST", "/v0/graphs", graphWith((g) => (g.taxonomy[0].id = bad("tref-TOC:Unit1"))), "body.taxonomy[0].id"],
      ["taxon module", "POST", "/v0/graphs", graphWith((g) => (g.taxonomy[0].modules[0] = bad("mref-a1"))), "body.taxonomy[0].modules[0]"],
      ["instance graph_id", "POST", "/v0/learning-instances", { graph_id: bad("gref-demo"), name: "Course" }, "body.graph_id"],
      ["instance graph_id (PUT)", "PUT", `/v0/learning-instances/${li.id}`, { graph_id: bad("gref-demo") }, "body.graph_id"],
      ["goal target", "POST", goals, goalBody({ targets: { include: [bad("lref-a")] } }), "body.targets.include[0]"],
      ["topic id", "POST", goals, goalBody({ targets: undefined, topics: [{ id: bad("t1"), targets: { include: ["lref-a"] } }] }), "body.topics[0].id"],
      [
        "topic target",
        "POST",
        goals,
        goalBody({ targets: undefined, topics: [{ id: "t1", targets: { include: [bad("lref-a")] } }] }),
        "body.topics[0].targets.include[0]",
      ],
      ["scope include", "POST", goals, goalBody({ scope: { include: [bad("lref-b")] } }), "body.scope.include[0]"],
      ["event module_id", "POST", `/v0/registrations/${reg.id}/graded-events`, event(bad("mref-a1")), "body.module_id"],
      ["instance_hash", "POST", `/v0/registrations/${reg.id}/graded-events`, event("mref-a2", { instance_hash: bad("h") }), "body.instance_hash"],
      [
        "batch event module_id",
        "POST",
        `/v0/registrations/${reg.id}/batch-events`,
        { events: [{ type: "ungraded-events", module_id: bad("mref-a3"), interaction_end_time: minutesAgo(1) }] },
        "body.events[0].module_id",
      ],
    ];
  };

  it("each forbidden character, at the start, middle or end, is 400 naming the field", async () => {
    // Every field gets 4 of the 18 characters, in rotation, so each character meets several fields.
    const chars = [...FORBIDDEN, ...LAYOUT];
    const failures: string[] = [];
    const fields = cases((s) => s).length;
    for (let f = 0; f < fields; f++) {
      for (let k = 0; k < 4; k++) {
        const [label, ch] = chars[(f + k * 5) % chars.length]!;
        const place = (f + k) % 3;
        const bad = (s: string) => (place === 0 ? ch + s : place === 1 ? s.slice(0, 2) + ch + s.slice(2) : s + ch);
        const [what, method, path, body, detail] = cases(bad)[f]!;
        const res = await rawCall(method, path, { token: await freshAdminToken(p), body });
        const paths = ((res.body?.details ?? []) as Json[]).map((d) => d.path);
        if (res.status !== 400 || !paths.includes(detail)) failures.push(`${label} in ${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("a graph path parameter with a NUL is 400 with path.graph_id", async () => {
    await ensureDemoGraph(p);
    // raw: the path is sent percent-encoded as written
    const res = await rawCall("GET", "/v0/graphs/gref-demo%00", { token: await freshAdminToken(p) });
    expectValidation(res, "path.graph_id");
  });

  it("a path parameter whose percent-encoding is not UTF-8 is 400 with the parameter's path, not 404", async () => {
    await ensureDemoGraph(p);
    const token = await freshAdminToken(p);
    const detail = { path: "path.graph_id", message: "is not valid percent-encoded UTF-8" };
    for (const id of ["gref-%FF", "gref-demo%C3", "gref-%C3%A9%FF", "gref-%ED%A0%80", "gref-%C0%AF", "gref-%"]) {
      for (const method of ["GET", "PUT"]) {
        const res = await rawCall(method, `/v0/graphs/${id}`, { token, body: method === "PUT" ? demoGraph() : undefined });
        expectErrorBody(res, 400);
        expect(res.body.details, `${method} ${id}`).toEqual([detail]);
      }
    }
    const account = await rawCall("GET", "/v0/accounts/%FF", { token });
    expect(account.body.details).toEqual([{ path: "path.account_id", message: "is not valid percent-encoded UTF-8" }]);
    // A label holding a literal "%FF" (sent as %25FF) is a well-formed identifier: not found, not refused.
    expect((await rawCall("GET", "/v0/graphs/gref-%25FF", { token })).status).toBe(404);
    expect((await rawCall("GET", "/v0/graphs/gref-d%C3%A9mo", { token })).status).toBe(404);
  });
});

describe("names and free text: line breaks and tabs yes, the other control and formatting characters no", () => {
  it("learning instance, goal, topic and graph names", async () => {
    const goals = `/v0/learning-instances/${li.id}/scoped-goals`;
    const named = (name: string): [string, string, unknown, string][] => [
      ["POST", "/v0/learning-instances", { graph_id: "gref-demo", name }, "body.name"],
      ["PUT", `/v0/learning-instances/${li.id}`, { name }, "body.name"],
      ["POST", goals, { name, adaptive_behavior: "practice", targets: { include: ["lref-a"] } }, "body.name"],
      ["POST", goals, { name: "G", adaptive_behavior: "practice", topics: [{ id: "t1", name, targets: { include: ["lref-a"] } }] }, "body.topics[0].name"],
      ["POST", "/v0/graphs/validate", { ...demoGraph(), name }, "body.name"],
      ["POST", "/v0/graphs/validate", { ...demoGraph(), modules: [{ ...demoGraph().modules[0], name }] }, "body.modules[0].name"],
    ];
    const failures: string[] = [];
    for (const [label, ch] of LAYOUT) {
      for (const [method, path, body] of named(`Week${ch}3`)) {
        const res = await rawCall(method, path, { token: await freshAdminToken(p), body });
        if (res.status >= 300) failures.push(`${label} ${method} ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    }
    for (const [label, ch] of FORBIDDEN) {
      for (const [method, path, body, detail] of named(`Week${ch}3`)) {
        const res = await rawCall(method, path, { token: await freshAdminToken(p), body });
        const paths = ((res.body?.details ?? []) as Json[]).map((d) => d.path);
        if (res.status !== 400 || !paths.includes(detail)) failures.push(`${label} ${method} ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe("event times before 1970-01-01 are 400", () => {
  it("interaction_end_time and time_followed, single and batch", async () => {
    const base = `/v0/registrations/${reg.id}`;
    for (const when of ["0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "1900-06-01T12:00:00+02:00"]) {
      for (const [path, body, detail] of [
        [`${base}/graded-events`, { module_id: "mref-a1", interaction_end_time: when, is_correct: true }, "body.interaction_end_time"],
        [`${base}/ungraded-events`, { module_id: "mref-a3", interaction_end_time: when }, "body.interaction_end_time"],
        [`${base}/recommendation-followed-events`, { module_id: "mref-a1", time_followed: when, recommendation_id: 1 }, "body.time_followed"],
        [
          `${base}/batch-events`,
          { events: [{ type: "graded-events", module_id: "mref-a1", interaction_end_time: when, is_correct: false }] },
          "body.events[0].interaction_end_time",
        ],
      ] as const) {
        expectValidation(await rawCall("POST", path, { token: await freshAdminToken(p), body }), detail);
      }
    }
  });

  it("1970-01-01T00:00:00Z itself is accepted", async () => {
    const res = await api("POST", "/v0/registrations/{id}/graded-events", {
      token: await freshAdminToken(p),
      body: { module_id: "mref-a1", interaction_end_time: "1970-01-01T00:00:00Z", is_correct: true },
      path: { id: reg.id },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
  });
});

describe("PUT of a learning instance naming its own graph", () => {
  it("by uuid, label or upper-case uuid is a no-op (200), whichever form created it; another graph is 422", async () => {
    const graph = await ensureDemoGraph(p);
    const byLabel = await createInstance(p, { graph_id: "gref-demo", name: "By label" });
    const byUuid = await createInstance(p, { graph_id: graph.id, name: "By uuid" });
    for (const instance of [byLabel, byUuid]) {
      for (const graph_id of ["gref-demo", graph.id, graph.id.toUpperCase()]) {
        const res = await api("PUT", "/v0/learning-instances/{id}", {
          token: await freshAdminToken(p),
          body: { graph_id, name: "Renamed" },
          path: { id: instance.id },
        });
        expect(res.status, `${instance.graph_id} -> ${graph_id}: ${JSON.stringify(res.body)}`).toBe(200);
        expect(res.body.graph_id).toBe(instance.graph_id);
      }
    }
    const other = await api("POST", "/v0/graphs", { token: await freshAdminToken(p), body: demoGraph(`gref-other-${uniqueId()}`) });
    expect(other.status).toBe(201);
    for (const graph_id of [other.body.label, other.body.id, "gref-missing"]) {
      const res = await api("PUT", "/v0/learning-instances/{id}", { token: await freshAdminToken(p), body: { graph_id }, path: { id: byLabel.id } });
      expectErrorBody(res, 422);
    }
  });
});
