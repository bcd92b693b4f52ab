import XAPI, { type Statement } from "@xapi/xapi";
import TinCan from "tincanjs";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { tokenFor } from "../../scripts/lib/seed-demo";
import { canonicalJson } from "../../src/lib/canonical-json";
import { demoGraph } from "../support/demo-graph";

/**
 * The export as xAPI statements (docs/privacy.md "Export": xAPI 1.0.3 statements that any LRS
 * accepts), read by two real xAPI libraries from npm against the Worker served by
 * `wrangler dev`: TinCanJS parses every statement and writes it back unchanged (a property it does
 * not understand or a malformed one would be dropped or rewritten), and @xapi/xapi sends them to an
 * LRS, Pathwise's own statement intake, which validates each against xAPI 1.0.3 and maps it back to
 * the same learner evidence.
 */
const service = inject("localService");
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

/** Graded answers the learner model applied per objective (proficiency evidence). */
async function evidence(registrationId: string): Promise<Record<string, number>> {
  const table = await api("POST", `/v0/registrations/${registrationId}/metrics/proficiency/rows`, { learning_objective_ids: ["lref-a", "lref-b", "lref-c"] });
  return Object.fromEntries(table.column_headers.map((h: string, i: number) => [h, table.data[0].values[i].evidence]));
}

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
let account: { id: string; external_user_id: string };
let graphLabel: string;
let original: string;
let statements: Statement[];

beforeAll(async () => {
  admin = await tokenFor(service.base, service.credentials, service.credentials.admin_external_user_id);
  graphLabel = `gref-export-${Date.now().toString(36)}`;
  await api("POST", "/v0/graphs", demoGraph(graphLabel));
  account = await api("POST", "/v0/accounts", { external_user_id: `export-${crypto.randomUUID()}` });
  const li = await api("POST", "/v0/learning-instances", { graph_id: graphLabel, name: "Exported class" });
  original = (await api("POST", "/v0/registrations", { account_id: account.id, learning_instance_id: li.id, type: "learner" })).id;
  const events = [
    { type: "graded-events", module_id: "mref-a1", interaction_end_time: minutesAgo(9), is_correct: true, duration: 42_500 },
    { type: "graded-events", module_id: "mref-b1", interaction_end_time: minutesAgo(8), is_correct: false },
    { type: "ungraded-events", module_id: "mref-b3", interaction_end_time: minutesAgo(7), duration: 3_723_000 },
    { type: "graded-events", module_id: "mref-c1", interaction_end_time: minutesAgo(6), is_correct: true },
  ];
  const res = await fetch(`${service.base}/v0/registrations/${original}/batch-events`, {
    method: "POST",
    headers: { Authorization: `Bearer ${admin}`, "Content-Type": "application/json" },
    body: JSON.stringify({ events: events.reverse() }),
  });
  expect(res.status).toBe(204);
  const exported = await fetch(`${service.base}/v0/accounts/${account.id}/export?format=xapi`, { headers: { Authorization: `Bearer ${admin}` } });
  expect(exported.status).toBe(200);
  statements = (await exported.json()) as Statement[];
});

describe("the xAPI export read by xAPI libraries", () => {
  it("tincanjs parses every exported statement and writes it back unchanged", () => {
    expect(statements).toHaveLength(4);
    for (const s of statements) {
      const parsed = TinCan.Statement.fromJSON(JSON.stringify(s));
      expect(canonicalJson(parsed.asVersion("1.0.0"))).toBe(canonicalJson(s));
      expect(parsed.id).toBe(s.id);
    }
  });

  it("@xapi/xapi sends them to an LRS (Pathwise's intake, into another registration of the learner): every one is accepted and the evidence is the same", async () => {
    const li = await api("POST", "/v0/learning-instances", { graph_id: graphLabel, name: "Imported class" });
    const copy = (await api("POST", "/v0/registrations", { account_id: account.id, learning_instance_id: li.id, type: "learner" })).id;
    const xapi = new XAPI({ endpoint: `${service.base}/v0/xapi/`, auth: `Bearer ${admin}`, version: "1.0.3" });
    const moved = statements.map((s) => ({ ...s, context: { ...s.context, registration: copy } }));
    const sent = await xapi.sendStatements({ statements: moved });
    expect(sent.status).toBe(200);
    expect(sent.data).toEqual(moved.map((s) => s.id));
    expect(await evidence(copy)).toEqual(await evidence(original));
    expect(await evidence(copy)).toEqual({ "lref-a": 1, "lref-b": 1, "lref-c": 1 });
  });
});
