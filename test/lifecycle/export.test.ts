import { SELF } from "cloudflare:test";
import { z } from "@hono/zod-openapi";
import { beforeAll, describe, expect, it } from "vitest";
import { AccountExportSchema, DataRequestViewSchema, XapiStatementSchema } from "../../src/schemas/data-lifecycle";
import { createAccount, createInstance, freshAdminToken, type Json, newPartner, type Partner, register } from "../support/api";
import { assignGoal, createGoal } from "../support/goals";
import { BASE } from "../support/raw-call";
import { api } from "../support/typed-api";

/**
 * GET /v0/accounts/{id}/export (docs/privacy.md "Export"): the account's data as one
 * streamed JSON document, and as xAPI 1.0.3 statements; each export is recorded. The xAPI libraries
 * read the statements in test/local/export-xapi.test.ts.
 */

const iso = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();

interface Learner {
  p: Partner;
  account: Json;
  regs: Json[];
  goal: Json;
  statementId: string;
  /** the events each registration was sent, oldest first */
  sent: Json[][];
}

let l: Learner;

async function exportOf(accountId: string, query = ""): Promise<Response> {
  return SELF.fetch(`${BASE}/v0/accounts/${accountId}/export${query}`, { headers: { Authorization: `Bearer ${await freshAdminToken(l.p)}` } });
}

beforeAll(async () => {
  const p = await newPartner("Export partner");
  const [li1, li2] = [await createInstance(p), await createInstance(p, { graph_id: "gref-demo", name: "Second class" })];
  const account = await createAccount(p);
  const regs = [await register(p, account.id, li1.id, "learner"), await register(p, account.id, li2.id, "learner")];
  const goal = await createGoal(p, li1.id);
  await assignGoal(p, li1.id, goal.id, regs[0]!.id);
  const first = [
    { type: "graded-events" as const, module_id: "mref-a1", interaction_end_time: iso(30), is_correct: true, duration: 42_000, instance_hash: "v7" },
    { type: "ungraded-events" as const, module_id: "mref-b3", interaction_end_time: iso(29), duration: 180_000 },
    { type: "graded-events" as const, module_id: "mref-b1", interaction_end_time: iso(28), is_correct: false, goal_id: goal.id },
    { type: "recommendation-followed" as const, module_id: "mref-b2", time_followed: iso(27), recommendation_id: 3 },
  ];
  const batch = await api("POST", "/v0/registrations/{id}/batch-events", {
    token: p.adminToken,
    body: { goal_id: goal.id, events: [...first].reverse() },
    path: { id: regs[0]!.id },
  });
  expect(batch.status).toBe(204);
  const statementId = crypto.randomUUID();
  const xapi = await api("POST", "/v0/xapi/statements", {
    token: p.adminToken,
    headers: { "X-Experience-API-Version": "1.0.3" },
    body: {
      id: statementId,
      actor: { account: { homePage: "https://lms.example.edu", name: account.external_user_id } },
      verb: { id: "http://adlnet.gov/expapi/verbs/answered" },
      object: { id: "https://lms.example.edu/activities/mref-c1" },
      result: { success: true, duration: "PT15S" },
      context: { registration: regs[1]!.id },
      timestamp: iso(10),
    },
  });
  expect(xapi.status).toBe(200);
  l = { p, account, regs, goal, statementId, sent: [first, []] };
});

describe("GET /v0/accounts/{id}/export", () => {
  it("streams one JSON document: the account, its registrations, goal assignments, every event as received, beliefs with intervals and goal statuses", async () => {
    const res = await exportOf(l.account.id);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="pathwise-account-${l.account.id}.json"`);
    const doc = AccountExportSchema.parse(await res.json());
    expect(doc.account).toMatchObject({ id: l.account.id, external_user_id: l.account.external_user_id, disabled: false });
    expect(doc.registrations.map((r) => r.id)).toEqual(l.regs.map((r) => r.id));
    const [first, second] = doc.registrations;
    expect(first?.goal_assignments).toEqual([{ goal_id: l.goal.id, name: l.goal.name, assigned_at: expect.any(String) }]);
    // the focus the batch's goal_id made, then the events as they were sent (oldest first)
    expect(first?.events).toEqual([
      { type: "focus-events" as const, goal_id: l.goal.id, received_at: expect.any(String) },
      {
        type: "graded-events" as const,
        module_id: "mref-a1",
        module: "mref-a1",
        interaction_end_time: l.sent[0]![0]!.interaction_end_time,
        is_correct: true,
        duration: 42_000,
        instance_hash: "v7",
        graph_version: 1,
        received_at: expect.any(String),
      },
      expect.objectContaining({ type: "ungraded-events" as const, module_id: "mref-b3", duration: 180_000 }),
      expect.objectContaining({ type: "graded-events" as const, module_id: "mref-b1", is_correct: false, goal_id: l.goal.id }),
      expect.objectContaining({
        type: "recommendation-followed-events" as const,
        module_id: "mref-b2",
        time_followed: l.sent[0]![3]!.time_followed,
        recommendation_id: 3,
      }),
    ]);
    expect(second?.events).toEqual([
      expect.objectContaining({ type: "graded-events" as const, module_id: "mref-c1", is_correct: true, duration: 15_000, statement_id: l.statementId }),
    ]);
    // beliefs with their intervals, for the objectives the answers touched
    const objectives = first?.beliefs.map((b) => b.learning_objective_id);
    expect(objectives).toEqual(expect.arrayContaining(["lref-a", "lref-b"]));
    for (const b of first?.beliefs ?? []) expect(b.lower <= b.proficiency && b.proficiency <= b.upper).toBe(true);
    expect(first?.beliefs.find((b) => b.learning_objective_id === "lref-a")?.evidence).toBe(1);
    expect(first?.goal_statuses).toEqual([expect.objectContaining({ goal_id: l.goal.id, status: expect.any(String) })]);
    expect(first?.events_removed_by_retention).toBe(0);
  });

  it("?format=xapi: every stored event as an xAPI 1.0.3 statement, the same ids on every export", async () => {
    const res = await exportOf(l.account.id, "?format=xapi");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="pathwise-account-${l.account.id}-xapi.json"`);
    const statements = z.array(XapiStatementSchema).parse(await res.json());
    expect(statements).toHaveLength(6);
    for (const s of statements) {
      expect(s.actor.account).toEqual({ homePage: BASE, name: l.account.external_user_id });
      expect(Number.isNaN(Date.parse(s.timestamp))).toBe(false);
    }
    const answered = statements.filter((s) => s.verb.id === "http://adlnet.gov/expapi/verbs/answered");
    expect(answered.map((s) => [s.object.id.split("/").at(-1), s.result?.success])).toEqual([
      ["mref-a1", true],
      ["mref-b1", false],
      ["mref-c1", true],
    ]);
    expect(answered[0]?.result?.duration).toBe("PT42S");
    expect(answered[2]?.context.registration).toBe(l.regs[1]!.id);
    expect(Object.values(answered[2]?.context.extensions ?? {})).toContain(l.statementId);
    expect(new Set(statements.map((s) => s.id)).size).toBe(6);
    const again = z.array(XapiStatementSchema).parse(await (await exportOf(l.account.id, "?format=xapi")).json());
    expect(again.map((s) => s.id)).toEqual(statements.map((s) => s.id));
  });

  it("a log longer than a page is streamed in pieces and arrives whole", async () => {
    const p = l.p;
    const account = await createAccount(p);
    const reg = await register(p, account.id, (await createInstance(p)).id, "learner");
    const start = Date.now() - 3 * 3600_000;
    for (let b = 0; b < 5; b++) {
      const events = Array.from({ length: 500 }, (_, k) => ({
        type: "graded-events" as const,
        module_id: k % 2 ? "mref-a1" : "mref-b1",
        interaction_end_time: new Date(start + (b * 500 + k) * 1000).toISOString(),
        is_correct: k % 3 !== 0,
      })).reverse();
      expect(
        (await api("POST", "/v0/registrations/{id}/batch-events", { token: await freshAdminToken(p), body: { events }, path: { id: reg.id } })).status,
      ).toBe(204);
    }
    const res = await exportOf(account.id);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const chunks: Uint8Array[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    expect(chunks.length).toBeGreaterThan(3); // one piece per page of 1,000 events at most
    const text = new TextDecoder().decode(Buffer.concat(chunks));
    const doc = AccountExportSchema.parse(JSON.parse(text));
    const events = doc.registrations[0]?.events ?? [];
    expect(events).toHaveLength(2500);
    expect(events.map((e) => e.interaction_end_time)).toEqual([...events.map((e) => e.interaction_end_time)].sort());
  });

  it("is recorded: who asked, when, the format, the outcome and what was sent", async () => {
    const before = await api("GET", "/v0/data-requests", { token: await freshAdminToken(l.p), query: { subject_id: l.account.id, type: "export" } });
    const res = await exportOf(l.account.id);
    const bytes = (await res.arrayBuffer()).byteLength;
    const records = await api("GET", "/v0/data-requests", { token: await freshAdminToken(l.p), query: { subject_id: l.account.id, type: "export" } });
    expect(records.status).toBe(200);
    const list = z.array(DataRequestViewSchema).parse(records.body);
    expect(list).toHaveLength(before.body.length + 1);
    expect(list[0]).toEqual({
      id: expect.any(String),
      type: "export",
      subject: { type: "account", id: l.account.id },
      format: "json",
      requested_by: { account_id: l.p.admin_account_id, request_id: expect.any(String) },
      requested_at: expect.any(String),
      outcome: "complete",
      completed_at: expect.any(String),
      detail: { registrations: 2, events: 6, bytes },
    });
  });

  it("answers 404 for an unknown account and 400 for an unknown format, recording nothing", async () => {
    const unknown = crypto.randomUUID();
    const missing = await exportOf(unknown);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 404, message: "Account not found." });
    const bad = await exportOf(l.account.id, "?format=csv");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).details).toEqual([expect.objectContaining({ path: "query.format" })]);
    const records = await api("GET", "/v0/data-requests", { token: await freshAdminToken(l.p), query: { subject_id: unknown } });
    expect(records.body).toEqual([]);
  });
});
