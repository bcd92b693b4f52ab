import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { createAccount, createInstance, type Json, newPartner, type Partner, register } from "../support/api";
import { fetchWith } from "../support/app";
import { rawCall } from "../support/raw-call";
import { eventCount, learnerState } from "../support/registration-object";
import { api } from "../support/typed-api";

/**
 * xAPI statements in (docs/xapi.md), through the Worker: the mapping to graded and ungraded events,
 * the same learner state as the event endpoints, idempotency by statement id, all or nothing,
 * refusals that name the statement's problem, caller rules, rate limits and what is not supported.
 * The real xAPI client libraries send statements in test/local/xapi-libraries.test.ts.
 */

const VERSION = { "X-Experience-API-Version": "1.0.3" };
const ANSWERED = { id: "http://adlnet.gov/expapi/verbs/answered", display: { "en-US": "answered" } };
const EXPERIENCED = { id: "http://adlnet.gov/expapi/verbs/experienced", display: { "en-US": "experienced" } };
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

interface Learner {
  account: Json;
  reg: Json;
  token: string;
}

let p: Partner;
let li: Json;
let instructorToken: string;

async function learner(): Promise<Learner> {
  const account = await createAccount(p);
  const reg = await register(p, account.id, li.id, "learner");
  return { account, reg, token: await p.tokenFor(account.external_user_id) };
}

function statement(l: Learner, fields: Json = {}): Json {
  return {
    actor: { objectType: "Agent", name: "A learner", account: { homePage: "https://lms.example.edu", name: l.account.external_user_id } },
    verb: ANSWERED,
    object: { objectType: "Activity", id: "https://lms.example.edu/activities/mref-a1", definition: { name: { "en-US": "Question a1" } } },
    result: { success: true, completion: true, duration: "PT30S", score: { scaled: 1 } },
    context: { registration: l.reg.id, platform: "Test LMS" },
    timestamp: minutesAgo(5),
    ...fields,
  };
}

/** A fresh admin token: its own rate-limit windows (15 a minute per registration). */
const adminToken = () => p.tokenFor(p.admin_external_user_id);
/** Untyped on purpose: the tests send malformed statements as well as good ones. */
const post = async (body: unknown, token?: string, headers: Record<string, string> = VERSION) =>
  rawCall("POST", "/v0/xapi/statements", { token: token ?? (await adminToken()), body, headers });

beforeAll(async () => {
  p = await newPartner("xAPI partner");
  li = await createInstance(p);
  const instructor = await createAccount(p);
  await register(p, instructor.id, li.id, "instructor");
  instructorToken = await p.tokenFor(instructor.external_user_id);
});

describe("POST /v0/xapi/statements", () => {
  it("stores one statement as a graded event and an array as graded and ungraded events, answering their ids in order", async () => {
    const l = await learner();
    const one = await post(statement(l));
    expect(one.status).toBe(200);
    expect(one.headers.get("x-experience-api-version")).toBe("1.0.3");
    expect(one.body).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/)]);
    expect(await eventCount(l.reg.id)).toBe(1);
    const after = await learnerState(l.reg.id);
    expect(after.objectives["lref-a"]?.n).toBe(1);
    expect(after.objectives["lref-a"]?.mu).toBeGreaterThan(0);

    const id = crypto.randomUUID();
    const many = await post([
      statement(l, {
        id,
        object: { id: "https://lms.example.edu/activities/mref-b3" },
        verb: EXPERIENCED,
        result: { duration: "PT2M" },
        timestamp: minutesAgo(4),
      }),
      statement(l, { object: { id: "mref-b1" }, result: { success: false }, timestamp: minutesAgo(3) }),
    ]);
    expect(many.status).toBe(200);
    expect(many.body).toHaveLength(2);
    expect(many.body[0]).toBe(id);
    expect(await eventCount(l.reg.id)).toBe(3);
    const state = await learnerState(l.reg.id);
    expect(state.seq).toBe(3);
    expect(state.objectives["lref-b"]?.u).toBe(1); // the ungraded lesson
    expect(state.objectives["lref-b"]?.n).toBe(1); // the wrong answer
  });

  it("moves the learner model exactly as the event endpoints do with the same answers", async () => {
    const viaEvents = await learner();
    const viaXapi = await learner();
    const t = [minutesAgo(9), minutesAgo(8), minutesAgo(7), minutesAgo(6)] as const;
    const events = [
      { type: "graded-events" as const, module_id: "mref-b2", interaction_end_time: t[3], is_correct: true, duration: 20_000 },
      { type: "ungraded-events" as const, module_id: "mref-a3", interaction_end_time: t[2], duration: 90_000 },
      { type: "graded-events" as const, module_id: "mref-a2", interaction_end_time: t[1], is_correct: false, duration: 1_500 },
      { type: "graded-events" as const, module_id: "mref-a1", interaction_end_time: t[0], is_correct: true },
    ];
    const batch = await api("POST", "/v0/registrations/{id}/batch-events", { token: await adminToken(), body: { events }, path: { id: viaEvents.reg.id } });
    expect(batch.status).toBe(204);
    const graph = await api("GET", "/v0/graphs/{graph_id}", { token: p.adminToken, path: { graph_id: "gref-demo" } });
    const a2 = graph.body.modules.find((m: Json) => m.id === "mref-a2");
    // in another order than time: statements are applied in timestamp order, as a batch is
    const statements = [
      statement(viaXapi, { object: { id: "mref-a1" }, result: { success: true }, timestamp: t[0] }),
      statement(viaXapi, { object: { id: "https://lms.example.edu/activities/mref-b2" }, result: { success: true, duration: "PT20S" }, timestamp: t[3] }),
      statement(viaXapi, { object: { id: `urn:uuid:${a2!.uuid}` }, result: { success: false, duration: "PT1.5S" }, timestamp: t[1] }),
      statement(viaXapi, { object: { id: "https://lms.example.edu/course#mref-a3" }, verb: EXPERIENCED, result: { duration: "PT1M30S" }, timestamp: t[2] }),
    ];
    expect((await post(statements)).status).toBe(200);
    expect(await learnerState(viaXapi.reg.id)).toEqual(await learnerState(viaEvents.reg.id));
  });

  it("stores a statement sent twice once, and refuses its id with other content (409) whatever the registration", async () => {
    const l = await learner();
    const other = await learner();
    const id = crypto.randomUUID();
    const s = statement(l, { id });
    const first = await post(s);
    const second = await post({ ...s, version: "1.0.3", stored: new Date().toISOString() }); // the properties an LRS sets do not count
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body).toEqual([id]);
    expect(await eventCount(l.reg.id)).toBe(1);
    const before = await learnerState(l.reg.id);

    const changed = await post({ ...s, result: { success: false } });
    expect(changed.status).toBe(409);
    expect(changed.body.details).toEqual([{ path: "body.id", message: expect.stringContaining(id) }]);
    const elsewhere = await post(statement(other, { id }));
    expect(elsewhere.status).toBe(409);
    // in an array, the conflict refuses the whole request: the fresh statement is not stored either
    const fresh = statement(l, { id: crypto.randomUUID(), object: { id: "mref-a2" } });
    const mixed = await post([fresh, { ...s, timestamp: minutesAgo(1) }]);
    expect(mixed.status).toBe(409);
    expect(mixed.body.details.map((d: Json) => d.path)).toEqual(["body[1].id"]);
    expect(await eventCount(l.reg.id)).toBe(1);
    expect(await eventCount(other.reg.id)).toBe(0);
    expect(await learnerState(l.reg.id)).toEqual(before);
    // the refused request took back its claim on the fresh statement's id: it can be sent with other content
    expect((await post({ ...fresh, result: { success: false } })).status).toBe(200);
    expect(await eventCount(l.reg.id)).toBe(2);
  });

  it("refuses an array with one bad statement with 400 naming it, and stores nothing of any registration", async () => {
    const a = await learner();
    const b = await learner();
    const res = await post([statement(a), statement(b), statement(b, { object: { id: "mref-nope" } })]);
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ path: "body[2].object.id", message: expect.stringContaining("mref-nope") }]);
    expect(await eventCount(a.reg.id)).toBe(0);
    expect(await eventCount(b.reg.id)).toBe(0);
    // and the good ones go in once the bad one is fixed
    const ok = await post([statement(a), statement(b)]);
    expect(ok.status).toBe(200);
    expect([await eventCount(a.reg.id), await eventCount(b.reg.id)]).toEqual([1, 1]);
  });

  it("names the reason of every refused statement (400)", async () => {
    const l = await learner();
    const other = await learner();
    const foreign = await newPartner("xAPI other partner");
    const foreignLi = await createInstance(foreign);
    const foreignReg = await register(foreign, (await createAccount(foreign)).id, foreignLi.id, "learner");
    const cases: [Json, string, RegExp][] = [
      [statement(l, { actor: { account: { homePage: "https://x", name: other.account.external_user_id } } }), "body.actor.account.name", /external_user_id/],
      [
        statement(l, { actor: { mbox: "mailto:someone@example.com", account: { homePage: "https://x", name: l.account.external_user_id } } }),
        "body.actor",
        /mbox/,
      ],
      [
        statement(l, { actor: { objectType: "Group", account: { homePage: "https://x", name: l.account.external_user_id } } }),
        "body.actor.objectType",
        /Agent/,
      ],
      [statement(l, { actor: { name: "No account" } }), "body.actor.account", /./],
      [statement(l, { context: {} }), "body.context.registration", /required/],
      [statement(l, { context: undefined }), "body.context.registration", /required/],
      [statement(l, { object: { objectType: "Activity" } }), "body.object.id", /required/],
      [statement(l, { object: { objectType: "Agent", account: { homePage: "https://x", name: "y" } } }), "body.object.objectType", /Agent/],
      [statement(l, { context: { registration: crypto.randomUUID() } }), "body.context.registration", /no registration/],
      [statement(l, { context: { registration: foreignReg.id } }), "body.context.registration", /no registration/],
      [statement(l, { object: { id: "https://lms.example.edu/activities/intro-video" } }), "body.object.id", /names no module/],
      [statement(l, { object: { id: "mref-set-a" } }), "body.object.id", /bundle/],
      [statement(l, { object: { objectType: "SubStatement", actor: {}, verb: ANSWERED, object: {} } }), "body.object.objectType", /SubStatement/],
      [statement(l, { result: { success: true, duration: "P1M" } }), "body.result.duration", /ISO 8601/],
      [statement(l, { result: { success: true, duration: "P8D" } }), "body.result.duration", /7 days/],
      [statement(l, { timestamp: new Date(Date.now() + 10 * 60_000).toISOString() }), "body.timestamp", /future/],
      [statement(l, { timestamp: "yesterday" }), "body.timestamp", /ISO 8601/],
      [statement(l, { verb: { display: {} } }), "body.verb.id", /./],
      [statement(l, { id: "not-a-uuid" }), "body.id", /UUID/],
    ];
    for (const [body, path, message] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ code: 400, message: expect.any(String), error_id: expect.any(String) });
      expect(res.body.details, path).toContainEqual({ path, message: expect.stringMatching(message) });
    }
    const id = crypto.randomUUID();
    const twice = await post([statement(l, { id }), statement(l, { id })]);
    expect(twice.status).toBe(400);
    expect(twice.body.details).toEqual([{ path: "body[1].id", message: expect.stringContaining("twice") }]);
    const notStatements = await post("hello");
    expect(notStatements.status).toBe(400);
    const none = await post([]);
    expect(none.status).toBe(400);
    expect(await eventCount(l.reg.id)).toBe(0);
  });

  it("judges identifiers by Unicode category and NFC, dates by the 1970-2100 range, and bounds the display map (400, nothing stored)", async () => {
    const l = await learner();
    const refused: [string, Json][] = [
      ["body.actor.account.name", { actor: { account: { homePage: "https://lms.example.edu", name: `${l.account.external_user_id}\u{E0041}` } } }],
      ["body.object.id", { object: { objectType: "Activity", id: "https://lms.example.edu/activities/mref-a1\u00A0" } }],
      ["body.verb.id", { verb: { id: "http://adlnet.gov/expapi/verbs/answe\u0301red" } }],
      ["body.timestamp", { timestamp: "2101-01-01T00:00:00Z" }],
      ["body.timestamp", { timestamp: "1969-12-31T23:59:59Z" }],
      ["body.verb.display", { verb: { ...ANSWERED, display: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`x-l${i}`, "answered"])) } }],
    ];
    for (const [path, fields] of refused) {
      const res = await post(statement(l, fields));
      expect(res.status, path).toBe(400);
      expect(res.body.details.map((d: Json) => d.path)).toContain(path);
    }
    expect(await eventCount(l.reg.id)).toBe(0);
  });

  it("needs an xAPI 1.0.x X-Experience-API-Version header", async () => {
    const l = await learner();
    const missing = await post(statement(l), undefined, {});
    expect(missing.status).toBe(400);
    expect(missing.body.details.map((d: Json) => d.path)).toEqual(["header.x-experience-api-version"]);
    const old = await post(statement(l), undefined, { "X-Experience-API-Version": "0.95" });
    expect(old.status).toBe(400);
    expect((await post(statement(l), undefined, { "X-Experience-API-Version": "1.0.0" })).status).toBe(200);
  });

  it("applies the event endpoints' caller rules to each registration named: admin or its owner", async () => {
    const l = await learner();
    const other = await learner();
    expect((await post(statement(l), l.token)).status).toBe(200);
    const forOther = await post([statement(l, { object: { id: "mref-a2" } }), statement(other)], l.token);
    expect(forOther.status).toBe(403);
    expect((await post(statement(l), instructorToken)).status).toBe(403);
    const anonymous = await rawCall("POST", "/v0/xapi/statements", { body: statement(l), headers: VERSION });
    expect(anonymous.status).toBe(401);
    expect([await eventCount(l.reg.id), await eventCount(other.reg.id)]).toEqual([1, 0]);
  });

  it("answers 501 for voiding, naming the statement, and stores nothing", async () => {
    const l = await learner();
    const voiding = statement(l, { verb: { id: "http://adlnet.gov/expapi/verbs/voided" }, object: { objectType: "StatementRef", id: crypto.randomUUID() } });
    const res = await post([statement(l), voiding]);
    expect(res.status).toBe(501);
    expect(res.body.details).toEqual([{ path: "body[1].verb.id", message: expect.stringContaining("voiding") }]);
    expect(await eventCount(l.reg.id)).toBe(0);
  });
});

describe("a registration's event store failing mid-request", () => {
  it("answers 503 with Retry-After; the retry of the same request stores every statement exactly once", async () => {
    const a = await learner();
    const b = await learner();
    // b's object cannot be reached (injected); a's is the real one
    const failing = {
      idFromName: (name: string) => ({ name, id: env.REGISTRATIONS.idFromName(name) }),
      get: ({ name, id }: { name: string; id: DurableObjectId }) =>
        name === b.reg.id ? { ingest: () => Promise.reject(new Error("Network connection lost (injected)")) } : env.REGISTRATIONS.get(id),
    } as unknown as Env["REGISTRATIONS"];
    const body = [
      statement(a, { id: crypto.randomUUID() }),
      statement(b, { id: crypto.randomUUID() }),
      statement(a, { id: crypto.randomUUID(), object: { id: "mref-a2" } }),
    ];
    const init = {
      method: "POST",
      headers: { Authorization: `Bearer ${await adminToken()}`, "Content-Type": "application/json", ...VERSION },
      body: JSON.stringify(body),
    };
    const failed = await fetchWith({ REGISTRATIONS: failing }, "/v0/xapi/statements", init);
    expect(failed.status).toBe(503);
    expect(Number(failed.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const error = (await failed.json()) as Json;
    expect(error.message).toMatch(/Retry the same request/);
    expect(JSON.stringify(error)).not.toMatch(/injected/);
    // a's object stored its statements; b's nothing
    expect([await eventCount(a.reg.id), await eventCount(b.reg.id)]).toEqual([2, 0]);
    const retried = await post(body);
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual(body.map((x) => x.id));
    expect([await eventCount(a.reg.id), await eventCount(b.reg.id)]).toEqual([2, 1]);
    expect((await post(body)).status).toBe(200);
    expect([await eventCount(a.reg.id), await eventCount(b.reg.id)]).toEqual([2, 1]);
  });
});

describe("PUT /v0/xapi/statements?statementId=", () => {
  it("stores the statement under statementId (204), once", async () => {
    const l = await learner();
    const id = crypto.randomUUID();
    const put = async (body: Json, statementId = id) =>
      rawCall("PUT", `/v0/xapi/statements?statementId=${statementId}`, { token: await adminToken(), body, headers: VERSION });
    const s = statement(l);
    const first = await put(s);
    expect(first.status).toBe(204);
    expect(first.headers.get("x-experience-api-version")).toBe("1.0.3");
    expect(await put({ ...s, id })).toMatchObject({ status: 204 });
    expect(await eventCount(l.reg.id)).toBe(1);
    const again = await post({ ...s, id });
    expect(again.body).toEqual([id]);
    expect(await eventCount(l.reg.id)).toBe(1);
    const mismatch = await put({ ...s, id: crypto.randomUUID() });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.details[0].path).toBe("body.id");
    expect((await put(s, "nope")).status).toBe(400);
    expect((await put({ ...s, result: { success: false } })).status).toBe(409);
  });
});

describe("rate limits", () => {
  it("counts a request once in the batch-events window of each registration it names, all or none", async () => {
    const a = await learner();
    const b = await learner();
    const token = await adminToken();
    for (let i = 0; i < 14; i++) expect((await post(statement(a, { timestamp: minutesAgo(10 - i * 0.1) }), token)).status).toBe(200);
    // the 15th request in a's window is a batch-events post: the same window
    const batch = await api("POST", "/v0/registrations/{id}/batch-events", {
      token,
      body: { events: [{ type: "ungraded-events" as const, module_id: "mref-a3", interaction_end_time: minutesAgo(1) }] },
      path: { id: a.reg.id },
    });
    expect(batch.status).toBe(204);
    expect(batch.headers.get("ratelimit-remaining")).toBe("0");
    const both = await post([statement(a), statement(b)], token);
    expect(both.status).toBe(429);
    expect(both.headers.get("x-service-rate-exceeded")).toBe("token-limited");
    expect(await eventCount(b.reg.id)).toBe(0);
    // the refused request was not counted in b's window either
    const onB = await post(statement(b), token);
    expect(onB.status).toBe(200);
    expect(onB.headers.get("ratelimit-remaining")).toBe("14");
  });
});

describe("the rest of xAPI", () => {
  it("answers about, and 501 for the statement query API and the document resources", async () => {
    const about = await rawCall("GET", "/v0/xapi/about");
    expect(about.status).toBe(200);
    expect(about.body).toEqual({ version: ["1.0.3"] });
    for (const [method, path] of [
      ["GET", "/v0/xapi/statements"],
      ["GET", `/v0/xapi/statements?statementId=${crypto.randomUUID()}`],
      ["PUT", "/v0/xapi/activities/state"],
      ["GET", "/v0/xapi/agents/profile"],
      ["POST", "/v0/xapi/activities/profile"],
    ] as const) {
      const res = await rawCall(method, path, { token: p.adminToken, headers: VERSION });
      expect(res.status, `${method} ${path}`).toBe(501);
      expect(res.body).toMatchObject({ code: 501, message: expect.stringContaining("not supported"), error_id: expect.any(String) });
    }
  });
});
