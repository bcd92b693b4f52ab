import XAPI from "@xapi/xapi";
import TinCan from "tincanjs";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { tokenFor } from "../../scripts/lib/seed-demo";
import { demoGraph } from "../support/demo-graph";

/**
 * A partner's existing xAPI emitter pointed at Pathwise (docs/xapi.md): statements sent by two real
 * xAPI client libraries from npm, @xapi/xapi (axios) and TinCanJS (XMLHttpRequest; it sends a
 * statement with an id as PUT ?statementId=), to the Worker served by `wrangler dev`, and the
 * learner state read back through the API (proficiency evidence: graded answers applied).
 */
const service = inject("localService");
const ENDPOINT = `${service.base}/v0/xapi/`;
const HOME = "https://lms.example.edu";

let admin: string;

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${service.base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${admin}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A learner registered in a new instance of the demo graph (unique label per file run). */
async function newLearner(graphLabel: string): Promise<{ externalUserId: string; registrationId: string }> {
  const externalUserId = `xapi-${crypto.randomUUID()}`;
  const account = await api("POST", "/v0/accounts", { external_user_id: externalUserId });
  const li = await api("POST", "/v0/learning-instances", { graph_id: graphLabel, name: "xAPI course" });
  const reg = await api("POST", "/v0/registrations", { account_id: account.id, learning_instance_id: li.id, type: "learner" });
  return { externalUserId, registrationId: reg.id };
}

/** Graded answers the learner model has applied per objective (proficiency rows' evidence). */
async function evidence(registrationId: string): Promise<Record<string, number>> {
  const table = await api("POST", `/v0/registrations/${registrationId}/metrics/proficiency/rows`, { learning_objective_ids: ["lref-a", "lref-b"] });
  return Object.fromEntries(table.column_headers.map((h: string, i: number) => [h, table.data[0].values[i].evidence]));
}

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
let graphLabel: string;

beforeAll(async () => {
  admin = await tokenFor(service.base, service.credentials, service.credentials.admin_external_user_id);
  graphLabel = `gref-xapi-${Date.now().toString(36)}`;
  await api("POST", "/v0/graphs", demoGraph(graphLabel));
});

describe("@xapi/xapi", () => {
  it("sends one statement and an array; the learner model moves; a statement sent again is stored once; voiding is refused", async () => {
    const learner = await newLearner(graphLabel);
    const xapi = new XAPI({ endpoint: ENDPOINT, auth: `Bearer ${admin}`, version: "1.0.3" });
    const actor = { objectType: "Agent" as const, account: { homePage: HOME, name: learner.externalUserId } };
    const context = { registration: learner.registrationId };
    expect(await evidence(learner.registrationId)).toEqual({ "lref-a": 0, "lref-b": 0 });

    const one = {
      id: crypto.randomUUID(),
      actor,
      verb: XAPI.Verbs.ANSWERED,
      object: { objectType: "Activity" as const, id: `${HOME}/activities/mref-a1` },
      result: { success: true, duration: XAPI.calculateISO8601Duration(new Date(Date.now() - 42_000), new Date()) },
      context,
      timestamp: minutesAgo(3),
    };
    const sent = await xapi.sendStatement({ statement: one });
    expect(sent.status).toBe(200);
    expect(sent.data).toEqual([one.id]);

    const many = await xapi.sendStatements({
      statements: [
        { actor, verb: XAPI.Verbs.ANSWERED, object: { id: `${HOME}/activities/mref-b1` }, result: { success: false }, context, timestamp: minutesAgo(2) },
        {
          actor,
          verb: XAPI.Verbs.COMPLETED,
          object: { id: `${HOME}/activities/mref-b3` },
          result: { completion: true, duration: "PT3M" },
          context,
          timestamp: minutesAgo(1),
        },
      ],
    });
    expect(many.status).toBe(200);
    expect(many.data).toHaveLength(2);
    expect(await evidence(learner.registrationId)).toEqual({ "lref-a": 1, "lref-b": 1 });

    // a retry of the same statement (a lost answer) changes nothing
    expect((await xapi.sendStatement({ statement: one })).data).toEqual([one.id]);
    expect(await evidence(learner.registrationId)).toEqual({ "lref-a": 1, "lref-b": 1 });

    // what the LRS refuses, the library reports with Pathwise's reason
    const refused = await xapi.voidStatement({ actor, statementId: one.id }).catch((error: { response?: { status: number; data: any } }) => error.response);
    expect(refused?.status).toBe(501);
    expect(refused?.data.details[0].message).toMatch(/voiding/);
    const wrongActor = await xapi
      .sendStatement({ statement: { ...one, id: crypto.randomUUID(), actor: { account: { homePage: HOME, name: "someone-else" } } } })
      .catch((error: { response?: { status: number; data: any } }) => error.response);
    expect(wrongActor?.status).toBe(400);
    expect(wrongActor?.data.details).toEqual([{ path: "body.actor.account.name", message: expect.stringContaining("external_user_id") }]);
    expect(await evidence(learner.registrationId)).toEqual({ "lref-a": 1, "lref-b": 1 });
  });
});

describe("tincanjs", () => {
  const save = (lrs: InstanceType<typeof TinCan.LRS>, statement: InstanceType<typeof TinCan.Statement>) =>
    new Promise<{ err: unknown; status: number | undefined; body: string | undefined }>((resolve) => {
      lrs.saveStatement(statement, { callback: (err, xhr) => resolve({ err, status: xhr?.status, body: xhr?.responseText }) });
    });
  const saveAll = (lrs: InstanceType<typeof TinCan.LRS>, statements: InstanceType<typeof TinCan.Statement>[]) =>
    new Promise<{ err: unknown; status: number | undefined; body: string | undefined }>((resolve) => {
      lrs.saveStatements(statements, { callback: (err, xhr) => resolve({ err, status: xhr?.status, body: xhr?.responseText }) });
    });

  it("saves statements (PUT with the id TinCanJS stamps, and POST for a list); the learner model moves; a statement saved again is stored once", async () => {
    const learner = await newLearner(graphLabel);
    // TinCanJS 0.50 speaks xAPI up to 1.0.2
    const lrs = new TinCan.LRS({ endpoint: ENDPOINT, auth: `Bearer ${admin}`, version: "1.0.2", allowFail: false });
    const statement = (module: string, result: Record<string, unknown>, timestamp: string) =>
      new TinCan.Statement({
        actor: { objectType: "Agent", account: { homePage: HOME, name: learner.externalUserId } },
        verb: { id: "http://adlnet.gov/expapi/verbs/answered", display: { "en-US": "answered" } },
        target: { objectType: "Activity", id: `${HOME}/activities/${module}` },
        result,
        context: { registration: learner.registrationId },
        timestamp,
      });

    const first = statement("mref-a1", { success: true, duration: "PT25S" }, minutesAgo(3));
    expect(first.id).toMatch(/^[0-9a-f-]{36}$/); // stamped by TinCanJS: saved with PUT ?statementId=
    const put = await save(lrs, first);
    expect(put.err).toBeNull();
    expect(put.status).toBe(204);
    expect(await evidence(learner.registrationId)).toEqual({ "lref-a": 1, "lref-b": 0 });

    const list = await saveAll(lrs, [statement("mref-a2", { success: false }, minutesAgo(2)), statement("mref-b2", { success: true }, minutesAgo(1))]);
    expect(list.err).toBeNull();
    expect(list.status).toBe(200);
    expect(JSON.parse(list.body ?? "[]")).toHaveLength(2);
    expect(await evidence(learner.registrationId)).toEqual({ "lref-a": 2, "lref-b": 1 });

    expect((await save(lrs, first)).status).toBe(204);
    expect(await evidence(learner.registrationId)).toEqual({ "lref-a": 2, "lref-b": 1 });

    // an array with one statement on a module the graph does not have: nothing of it is stored
    const bad = await saveAll(lrs, [statement("mref-a1", { success: true }, minutesAgo(1)), statement("mref-zz9", { success: true }, minutesAgo(1))]);
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body ?? "{}").details).toEqual([{ path: "body[1].object.id", message: expect.stringContaining("mref-zz9") }]);
    expect(await evidence(learner.registrationId)).toEqual({ "lref-a": 2, "lref-b": 1 });
  });
});
