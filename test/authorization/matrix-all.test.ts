import { z } from "@hono/zod-openapi";
import { beforeAll, describe, expect, it } from "vitest";
import { callerRules, type RouteKey } from "../../src/http/caller-rules";
import {
  AccountExportSchema,
  DataRequestViewSchema,
  ErasureAcceptedSchema,
  ErasureReceiptSchema,
  PartnerSettingsSchema,
} from "../../src/schemas/data-lifecycle";
import { AssignmentSchema, BatchAssignmentResult, GoalSchema } from "../../src/schemas/goals";
import { GraphSummarySchema, GraphValidationSchema, GraphWithIdsSchema } from "../../src/schemas/graphs";
import { RecommendationSchema } from "../../src/schemas/recommendations";
import { RegistrationStatusTableSchema, StatusTableSchema } from "../../src/schemas/status-and-progress";
import { allows, type CallerName, expectCellOutcome, factsOf, type SubjectKind } from "../core-api/fixture";
import { createGraph, freshAdminToken, type Json, mintToken, uniqueId } from "../support/api";
import { demoGraph } from "../support/demo-graph";
import { assignGoal, assignmentPath, createGoal, goalBody, goalPath, goalsPath } from "../support/goals";
import { type ApiResponse, rawCall } from "../support/raw-call";
import { eventCount, focusOf } from "../support/registration-object";
import { api } from "../support/typed-api";
import { type MatrixFixture, minutesAgo, newMatrixFixture, ROSTER_ROUTE, type Side } from "./support";

/**
 * The authorization matrix for every callerRules row the roster matrix does not cover
 * (graphs, scoped goals and their assignment, student events, and whatever rows land later — the
 * guard test below fails until they get a case). Each row is called by the five callers; the
 * expected status is derived from the roles in `callerRules`. Allowed cells must answer the route's
 * success status with a body of the route's schema; refused cells answer 403/404 with the error
 * body and change nothing (checked by a follow-up read as admin).
 */

const CALLERS: CallerName[] = ["admin", "owner", "instructor", "otherLearner", "otherPartnerAdmin"];

interface Ctx {
  fx: MatrixFixture;
  /** whose resources the request names (partner A's in the matrix, B's in the cross-partner test) */
  side: Side;
  caller: CallerName;
  /** per-cell resources made by `prepare` */
  s: Json;
}

interface Case {
  key: RouteKey;
  success: number;
  subject: SubjectKind;
  /** fresh resources for this cell (destructive requests), made as the side's admin */
  prepare?(ctx: Omit<Ctx, "s">): Promise<Json>;
  params?(ctx: Ctx): Record<string, string>;
  query?: string | ((ctx: Ctx) => string);
  body?(ctx: Ctx): unknown;
  /** checks on a 2xx answer (the body's shape and the effect) */
  onSuccess?(ctx: Ctx, res: ApiResponse, body: any): Promise<void> | void;
  /** after a refused request: prove nothing changed */
  unchanged?(ctx: Ctx, body: any): Promise<void>;
  headers?: Record<string, string>;
  /**
   * The status when the body names another partner's resource (default 404): xAPI statements naming
   * a registration that is not the caller's partner's are 400, like any unmappable statement (docs/xapi.md "Validation, all or nothing").
   */
  foreignStatus?: number;
}

/** A read as the side's admin with a fresh token (follow-up reads never hit a rate limit). */
const adminGet = async (side: Side, path: string) => rawCall("GET", path, { token: await freshAdminToken(side.p) });
const otherSide = (ctx: Ctx) => (ctx.side === ctx.fx.sideA ? ctx.fx.sideB : ctx.fx.sideA);
/** The partner the caller belongs to. */
const callerSide = (ctx: Ctx) => (ctx.caller === "otherPartnerAdmin" ? ctx.fx.sideB : ctx.fx.sideA);

const liParams = (ctx: Ctx) => ({ id: ctx.side.world.li.id });
const freshGoal = async (ctx: Omit<Ctx, "s">) => ({ goal: await createGoal(ctx.side.p, ctx.side.world.li.id, goalBody(), await freshAdminToken(ctx.side.p)) });
const assignmentOf = async (ctx: Ctx, goalId: string) => adminGet(ctx.side, assignmentPath(ctx.side.world.li.id, goalId, ctx.side.world.ownerReg.id));

// ---- graphs -------------------------------------------------------------------------------------

const GRAPH_CASES: Case[] = [
  {
    key: "POST /v0/graphs",
    success: 201,
    subject: null,
    body: () => demoGraph(uniqueId("gref-mx-new")),
    onSuccess: async (ctx, res, body) => {
      expect(res.body).toMatchObject({ id: expect.any(String), label: body.label, name: body.name, version: 1, counts: expect.any(Object) });
      // stored for the caller's partner only
      expect((await adminGet(callerSide(ctx), `/v0/graphs/${body.label}`)).status).toBe(200);
      expect((await adminGet(otherSide({ ...ctx, side: callerSide(ctx) }), `/v0/graphs/${res.body.id}`)).status).toBe(404);
    },
    unchanged: async (ctx, body) => {
      expect((await adminGet(ctx.fx.sideA, `/v0/graphs/${body.label}`)).status).toBe(404);
    },
  },
  {
    key: "POST /v0/graphs/validate",
    success: 200,
    subject: null,
    body: () => demoGraph(uniqueId("gref-mx-val")),
    onSuccess: async (ctx, res, body) => {
      GraphValidationSchema.parse(res.body);
      expect(res.body).toMatchObject({ valid: true, errors: [] });
      expect((await adminGet(callerSide(ctx), `/v0/graphs/${body.label}`)).status).toBe(404);
    },
  },
  {
    key: "PUT /v0/graphs/{graph_id}",
    success: 200,
    subject: "graph",
    prepare: async (ctx) => ({ graph: await createGraph(ctx.side.p, demoGraph(uniqueId("gref-mx")), await freshAdminToken(ctx.side.p)) }),
    params: (ctx) => ({ graph_id: ctx.s.graph.id }),
    body: (ctx) => demoGraph(ctx.s.graph.label, `Renamed by ${ctx.caller}`),
    onSuccess: async (ctx, res) => {
      expect(res.body).toMatchObject({ id: ctx.s.graph.id, label: ctx.s.graph.label, name: `Renamed by ${ctx.caller}`, version: 2 });
      expect((await adminGet(ctx.side, `/v0/graphs/${ctx.s.graph.id}`)).body).toMatchObject({ version: 2, name: `Renamed by ${ctx.caller}` });
    },
    unchanged: async (ctx) => {
      expect((await adminGet(ctx.side, `/v0/graphs/${ctx.s.graph.id}`)).body).toMatchObject({ version: 1, name: ctx.s.graph.name });
    },
  },
  {
    key: "GET /v0/graphs/{graph_id}",
    success: 200,
    subject: "graph",
    params: (ctx) => ({ graph_id: ctx.side.graph.id }),
    onSuccess: (ctx, res) => {
      GraphWithIdsSchema.parse(res.body);
      expect(res.body).toMatchObject({ id: ctx.side.graph.id, label: "gref-demo" });
      for (const m of res.body.modules) expect(m.uuid).toEqual(expect.any(String));
    },
  },
  {
    key: "GET /v0/graphs",
    success: 200,
    subject: null,
    query: "?limit=500",
    onSuccess: (ctx, res) => {
      const ids = (res.body as Json[]).map((g) => GraphSummarySchema.parse(g).id);
      // each partner sees its own graphs only
      const own = callerSide(ctx);
      expect(ids).toContain(own.graph.id);
      expect(ids).not.toContain(otherSide({ ...ctx, side: own }).graph.id);
    },
  },
];

// ---- scoped goals and their assignment ------------------------------------------------------------

const GOAL_CASES: Case[] = [
  {
    key: "POST /v0/learning-instances/{id}/scoped-goals",
    success: 201,
    subject: "instance",
    params: liParams,
    body: () => goalBody({ name: `Goal ${uniqueId("new")}` }),
    onSuccess: async (ctx, res, body) => {
      expect(GoalSchema.parse(res.body)).toMatchObject({ name: body.name, learning_instance_id: ctx.side.world.li.id });
      expect((await adminGet(ctx.side, goalPath(ctx.side.world.li.id, res.body.id))).status).toBe(200);
    },
    unchanged: async (ctx, body) => {
      const list = await adminGet(ctx.side, `${goalsPath(ctx.side.world.li.id)}?limit=500`);
      expect(list.status).toBe(200);
      expect((list.body as Json[]).map((g) => g.name)).not.toContain(body.name);
    },
  },
  {
    key: "GET /v0/learning-instances/{id}/scoped-goals",
    success: 200,
    subject: "instance",
    params: liParams,
    query: "?limit=500",
    onSuccess: (ctx, res) => {
      const goals = (res.body as Json[]).map((g) => GoalSchema.parse(g));
      expect(goals.map((g) => g.id)).toContain(ctx.side.goal.id);
      for (const g of goals) expect(g.learning_instance_id).toBe(ctx.side.world.li.id);
    },
  },
  {
    key: "GET /v0/learning-instances/{id}/scoped-goals/{goal_id}",
    success: 200,
    subject: "instance",
    params: (ctx) => ({ id: ctx.side.world.li.id, goal_id: ctx.side.goal.id }),
    onSuccess: (ctx, res) => expect(GoalSchema.parse(res.body)).toEqual(ctx.side.goal),
  },
  {
    key: "PUT /v0/learning-instances/{id}/scoped-goals/{goal_id}",
    success: 200,
    subject: "instance",
    prepare: freshGoal,
    params: (ctx) => ({ id: ctx.side.world.li.id, goal_id: ctx.s.goal.id }),
    body: (ctx) => goalBody({ name: `Renamed by ${ctx.caller}` }),
    onSuccess: async (ctx, res) => {
      expect(GoalSchema.parse(res.body)).toMatchObject({ id: ctx.s.goal.id, name: `Renamed by ${ctx.caller}` });
      expect((await adminGet(ctx.side, goalPath(ctx.side.world.li.id, ctx.s.goal.id))).body.name).toBe(`Renamed by ${ctx.caller}`);
    },
    unchanged: async (ctx) => {
      expect((await adminGet(ctx.side, goalPath(ctx.side.world.li.id, ctx.s.goal.id))).body).toEqual(ctx.s.goal);
    },
  },
  {
    key: "DELETE /v0/learning-instances/{id}/scoped-goals/{goal_id}",
    success: 204,
    subject: "instance",
    prepare: freshGoal,
    params: (ctx) => ({ id: ctx.side.world.li.id, goal_id: ctx.s.goal.id }),
    onSuccess: async (ctx) => {
      expect((await adminGet(ctx.side, goalPath(ctx.side.world.li.id, ctx.s.goal.id))).status).toBe(404);
    },
    unchanged: async (ctx) => {
      expect((await adminGet(ctx.side, goalPath(ctx.side.world.li.id, ctx.s.goal.id))).body).toEqual(ctx.s.goal);
    },
  },
  {
    key: "PUT /v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations",
    success: 200,
    subject: "instance",
    prepare: freshGoal,
    params: (ctx) => ({ id: ctx.side.world.li.id, goal_id: ctx.s.goal.id }),
    body: (ctx) => ({ action: "assign", registration_ids: [ctx.side.world.ownerReg.id] }),
    onSuccess: async (ctx, res) => {
      expect(BatchAssignmentResult.parse(res.body)).toEqual({ action: "assign", success: { registration_ids: [ctx.side.world.ownerReg.id] }, failure: [] });
      expect((await assignmentOf(ctx, ctx.s.goal.id)).status).toBe(200);
    },
    unchanged: async (ctx) => {
      expect((await assignmentOf(ctx, ctx.s.goal.id)).status).toBe(404);
    },
  },
  {
    key: "PUT /v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}",
    success: 200,
    subject: "instance",
    prepare: freshGoal,
    params: (ctx) => ({ id: ctx.side.world.li.id, goal_id: ctx.s.goal.id, registration_id: ctx.side.world.ownerReg.id }),
    onSuccess: async (ctx, res) => {
      expect(AssignmentSchema.parse(res.body)).toEqual({ goal_id: ctx.s.goal.id, registration_id: ctx.side.world.ownerReg.id });
      expect((await assignmentOf(ctx, ctx.s.goal.id)).status).toBe(200);
    },
    unchanged: async (ctx) => {
      expect((await assignmentOf(ctx, ctx.s.goal.id)).status).toBe(404);
    },
  },
  {
    key: "GET /v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}",
    success: 200,
    subject: "instance",
    params: (ctx) => ({ id: ctx.side.world.li.id, goal_id: ctx.side.goal.id, registration_id: ctx.side.world.ownerReg.id }),
    onSuccess: (ctx, res) => {
      expect(AssignmentSchema.parse(res.body)).toEqual({ goal_id: ctx.side.goal.id, registration_id: ctx.side.world.ownerReg.id });
    },
  },
  {
    key: "DELETE /v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}",
    success: 204,
    subject: "instance",
    prepare: async (ctx) => {
      const { goal } = await freshGoal(ctx);
      await assignGoal(ctx.side.p, ctx.side.world.li.id, goal.id, ctx.side.world.ownerReg.id, await freshAdminToken(ctx.side.p));
      return { goal };
    },
    params: (ctx) => ({ id: ctx.side.world.li.id, goal_id: ctx.s.goal.id, registration_id: ctx.side.world.ownerReg.id }),
    onSuccess: async (ctx) => {
      expect((await assignmentOf(ctx, ctx.s.goal.id)).status).toBe(404);
    },
    unchanged: async (ctx) => {
      expect((await assignmentOf(ctx, ctx.s.goal.id)).status).toBe(200);
    },
  },
];

// ---- student events -------------------------------------------------------------------------------

/** An event post on the owner's registration: 204, exactly one more event in its log when allowed, none when refused. */
function eventCase(kind: string, body: (ctx: Ctx) => Json): Case {
  return {
    key: `POST /v0/registrations/{id}/${kind}` as RouteKey,
    success: 204,
    subject: "registration",
    prepare: async (ctx) => ({ before: await eventCount(ctx.side.world.ownerReg.id) }),
    params: (ctx) => ({ id: ctx.side.world.ownerReg.id }),
    body,
    onSuccess: async (ctx) => {
      expect(await eventCount(ctx.side.world.ownerReg.id)).toBe(ctx.s.before + 1);
    },
    unchanged: async (ctx) => {
      expect(await eventCount(ctx.side.world.ownerReg.id)).toBe(ctx.s.before);
    },
  };
}

const EVENT_CASES: Case[] = [
  eventCase("graded-events", () => ({ module_id: "mref-a1", interaction_end_time: minutesAgo(1), is_correct: true, is_complete: true, duration: 20_000 })),
  eventCase("ungraded-events", () => ({ module_id: "mref-a3", interaction_end_time: minutesAgo(1), is_complete: true })),
  eventCase("recommendation-followed-events", () => ({ module_id: "mref-b1", time_followed: minutesAgo(1), recommendation_id: 7 })),
  eventCase("focus-events", (ctx) => ({ goal_id: ctx.side.goal.id })),
  eventCase("batch-events", () => ({ events: [{ type: "ungraded-events", module_id: "mref-b3", interaction_end_time: minutesAgo(1) }] })),
];

// ---- xAPI statements ------------------------------------------------------------------------------

/** A statement on the owner's registration (its account as the actor): 200 or 204 and one more event when allowed, none when refused. */
function statementCase(method: "POST" | "PUT"): Case {
  const id = crypto.randomUUID();
  return {
    key: `${method} /v0/xapi/statements` as RouteKey,
    success: method === "POST" ? 200 : 204,
    subject: "registration",
    foreignStatus: 400,
    headers: { "X-Experience-API-Version": "1.0.3" },
    prepare: async (ctx) => ({ before: await eventCount(ctx.side.world.ownerReg.id), id: crypto.randomUUID() }),
    query: (ctx) => (method === "PUT" ? `?statementId=${ctx.s.id}` : ""),
    body: (ctx) => ({
      ...(method === "POST" ? { id: ctx.s.id ?? id } : {}),
      actor: { account: { homePage: "https://lms.example.edu", name: ctx.side.world.ownerAccount.external_user_id } },
      verb: { id: "http://adlnet.gov/expapi/verbs/answered" },
      object: { id: "https://lms.example.edu/activities/mref-a1" },
      result: { success: true },
      context: { registration: ctx.side.world.ownerReg.id },
      timestamp: minutesAgo(1),
    }),
    onSuccess: async (ctx) => {
      expect(await eventCount(ctx.side.world.ownerReg.id)).toBe(ctx.s.before + 1);
    },
    unchanged: async (ctx) => {
      expect(await eventCount(ctx.side.world.ownerReg.id)).toBe(ctx.s.before);
    },
  };
}

const XAPI_CASES: Case[] = [statementCase("POST"), statementCase("PUT")];

// ---- recommendations and status and progress --------------------------------------------------------

/** A goal of the side's instance assigned to the owner's registration, made for one cell. */
const freshAssignedGoal = async (ctx: Omit<Ctx, "s">) => {
  const goal = await createGoal(ctx.side.p, ctx.side.world.li.id, goalBody({ name: `Goal ${uniqueId("rec")}` }), await freshAdminToken(ctx.side.p));
  await assignGoal(ctx.side.p, ctx.side.world.li.id, goal.id, ctx.side.world.ownerReg.id, await freshAdminToken(ctx.side.p));
  return { goal };
};

const ANALYTICS_CASES: Case[] = [
  {
    key: "GET /v0/registrations/{id}/recommendation",
    success: 200,
    subject: "registration",
    prepare: freshAssignedGoal,
    params: (ctx) => ({ id: ctx.side.world.ownerReg.id }),
    query: (ctx) => `?goal_id=${ctx.s.goal.id}&justifications=true`,
    onSuccess: async (ctx, res) => {
      expect(RecommendationSchema.parse(res.body)).toMatchObject({ status: "in progress", focus_state: "focused" });
      expect(await focusOf(ctx.side.world.ownerReg.id)).toBe(ctx.s.goal.id);
    },
    // a refused request does not focus the goal
    unchanged: async (ctx) => {
      expect(await focusOf(ctx.side.world.ownerReg.id)).not.toBe(ctx.s.goal.id);
    },
  },
  {
    key: "POST /v0/learning-instances/{id}/metrics/status-and-progress",
    success: 200,
    subject: "instance",
    params: liParams,
    body: (ctx) => ({ goal_ids: [ctx.side.goal.id] }),
    onSuccess: (ctx, res) => {
      const table = StatusTableSchema.parse(res.body);
      expect(table.column_headers).toEqual([ctx.side.goal.id]);
      expect(table.data.map((r) => r.registration_id)).toEqual([ctx.side.world.ownerReg.id]);
    },
  },
  {
    key: "POST /v0/registrations/{id}/metrics/status-and-progress",
    success: 200,
    subject: "registration",
    params: (ctx) => ({ id: ctx.side.world.ownerReg.id }),
    body: (ctx) => ({ goal_ids: [ctx.side.goal.id] }),
    onSuccess: (ctx, res) => {
      const table = RegistrationStatusTableSchema.parse(res.body);
      expect(table.data).toHaveLength(1);
      expect(table.data[0]).toMatchObject({
        registration_id: ctx.side.world.ownerReg.id,
        status_and_progress: [{ goal_id: ctx.side.goal.id, status: "no_work" }],
      });
    },
  },
];

// ---- predicted score, metrics rows, learners to watch ------------------------------------------------

const metricBodies: Record<string, (ctx: Ctx) => Json> = {
  proficiency: (ctx) => ({ goal_ids: [ctx.side.goal.id], learning_objective_ids: ["lref-a"] }),
  "expected-score": (ctx) => ({ goal_ids: [ctx.side.goal.id] }),
  "readiness-forecast": (ctx) => ({ goal_ids: [ctx.side.goal.id] }),
  "active-time": () => ({ start_date: "2026-11-01", end_date: "2026-11-07" }),
};

const METRIC_CASES: Case[] = Object.entries(metricBodies).flatMap(([metric, body]): Case[] => [
  {
    key: `POST /v0/learning-instances/{id}/metrics/${metric}/rows` as RouteKey,
    success: 200,
    subject: "instance",
    params: liParams,
    body,
    onSuccess: (ctx, res) => {
      expect(res.body.data.map((r: Json) => r.registration_id)).toContain(ctx.side.world.ownerReg.id);
      for (const r of res.body.data) expect(r.values).toHaveLength(res.body.column_headers.length);
    },
  },
  {
    key: `POST /v0/registrations/{id}/metrics/${metric}/rows` as RouteKey,
    success: 200,
    subject: "registration",
    params: (ctx) => ({ id: ctx.side.world.ownerReg.id }),
    body,
    onSuccess: (ctx, res) => {
      expect(res.body.data).toEqual([{ registration_id: ctx.side.world.ownerReg.id, values: expect.any(Array) }]);
      expect(res.body.next).toBeUndefined();
    },
  },
]);

const WATCH_CASES: Case[] = [
  {
    key: "POST /v0/accounts/metrics/predicted-score",
    success: 200,
    // the body names the side's accounts: another partner's admin is told they do not exist
    subject: "account",
    body: (ctx) => ({
      account_ids: [ctx.side.world.ownerAccount.id],
      graph_ids: ["gref-demo"],
      grouped_learning_objectives: [{ group_id: "g", learning_objectives: [{ learning_objective_id: "lref-a" }] }],
      confidence_levels: [50],
    }),
    onSuccess: (ctx, res) => {
      expect(Object.keys(res.body.account_scores)).toEqual([ctx.side.world.ownerAccount.id]);
    },
  },
  {
    key: "POST /v0/learning-instances/{id}/metrics/groups",
    success: 200,
    subject: "instance",
    params: liParams,
    body: (ctx) => ({ goal_ids: [ctx.side.goal.id] }),
    onSuccess: (_ctx, res) => {
      expect(Array.isArray(res.body.groups)).toBe(true);
    },
  },
];

// ---- student data lifecycle (docs/privacy.md: partner admin only) ---------------------------------

/** A fresh account of the side, registered in its instance (an erasure destroys it: one per cell). */
const freshAccount = async (ctx: Omit<Ctx, "s">) => {
  const token = await freshAdminToken(ctx.side.p);
  const account = (await api("POST", "/v0/accounts", { token, body: { external_user_id: uniqueId("erase-me") } })).body;
  await api("POST", "/v0/registrations", { token, body: { account_id: account.id, learning_instance_id: ctx.side.world.li.id, type: "learner" } });
  return { account };
};
/** The record of data requests about a subject, as the side's admin reads it. */
const requestsAbout = async (ctx: Ctx, subjectId: string) => (await adminGet(ctx.side, `/v0/data-requests?subject_id=${subjectId}`)).body as Json[];
const settingsOf = async (ctx: Ctx) => (await api("GET", "/v0/partner/settings", { token: await freshAdminToken(callerSide(ctx).p) })).body;

const LIFECYCLE_CASES: Case[] = [
  {
    key: "POST /v0/accounts/{account_id}/erasure",
    success: 202,
    subject: "account",
    prepare: freshAccount,
    params: (ctx) => ({ account_id: ctx.s.account.id }),
    onSuccess: async (ctx, res) => {
      expect(ErasureAcceptedSchema.parse(res.body).status).toBe("pending");
      expect((await adminGet(ctx.side, `/v0/accounts/${ctx.s.account.id}`)).status).toBe(404);
    },
    unchanged: async (ctx) => {
      expect((await adminGet(ctx.side, `/v0/accounts/${ctx.s.account.id}`)).status).toBe(200);
      expect(await requestsAbout(ctx, ctx.s.account.id)).toEqual([]);
    },
  },
  {
    key: "POST /v0/learning-instances/{id}/erasure",
    success: 202,
    subject: "instance",
    prepare: async (ctx) => ({
      li: (await api("POST", "/v0/learning-instances", { token: await freshAdminToken(ctx.side.p), body: { graph_id: "gref-demo", name: uniqueId("class") } }))
        .body,
    }),
    params: (ctx) => ({ id: ctx.s.li.id }),
    onSuccess: async (ctx, res) => {
      expect(ErasureAcceptedSchema.parse(res.body).status).toBe("pending");
      expect((await adminGet(ctx.side, `/v0/learning-instances/${ctx.s.li.id}`)).status).toBe(404);
    },
    unchanged: async (ctx) => {
      expect((await adminGet(ctx.side, `/v0/learning-instances/${ctx.s.li.id}`)).status).toBe(200);
    },
  },
  {
    key: "GET /v0/erasures/{erasure_id}",
    success: 200,
    subject: "account",
    prepare: async (ctx) => {
      const { account } = await freshAccount(ctx);
      const res = await api("POST", "/v0/accounts/{account_id}/erasure", { token: await freshAdminToken(ctx.side.p), path: { account_id: account.id } });
      return { account, erasureId: res.body.erasure_id };
    },
    params: (ctx) => ({ erasure_id: ctx.s.erasureId }),
    onSuccess: (ctx, res) => {
      expect(ErasureReceiptSchema.parse(res.body)).toMatchObject({ erasure_id: ctx.s.erasureId, account_id: ctx.s.account.id });
    },
  },
  {
    key: "GET /v0/accounts/{account_id}/export",
    success: 200,
    subject: "account",
    params: (ctx) => ({ account_id: ctx.side.world.ownerAccount.id }),
    prepare: async (ctx) => ({ before: (await requestsAbout({ ...ctx, s: {} }, ctx.side.world.ownerAccount.id)).length }),
    onSuccess: (ctx, res) => {
      const doc = AccountExportSchema.parse(res.body);
      expect(doc.account.id).toBe(ctx.side.world.ownerAccount.id);
      expect(doc.registrations.map((r) => r.id)).toContain(ctx.side.world.ownerReg.id);
    },
    // a refused export is not recorded (nothing was handed over)
    unchanged: async (ctx) => {
      expect(await requestsAbout(ctx, ctx.side.world.ownerAccount.id)).toHaveLength(ctx.s.before);
    },
  },
  {
    key: "GET /v0/data-requests",
    success: 200,
    subject: null,
    onSuccess: (_ctx, res) => {
      expect(z.array(DataRequestViewSchema).parse(res.body)).toEqual(expect.any(Array));
    },
  },
  {
    key: "GET /v0/partner/settings",
    success: 200,
    subject: null,
    onSuccess: (_ctx, res) => {
      expect(PartnerSettingsSchema.parse(res.body)).toEqual({ event_retention_days: null });
    },
  },
  {
    key: "PUT /v0/partner/settings",
    success: 200,
    subject: null,
    body: () => ({ event_retention_days: null }),
    onSuccess: (_ctx, res) => {
      expect(res.body).toEqual({ event_retention_days: null });
    },
    unchanged: async (ctx) => {
      expect(await settingsOf(ctx)).toEqual({ event_retention_days: null });
    },
  },
];

const CASES: Case[] = [...GRAPH_CASES, ...GOAL_CASES, ...EVENT_CASES, ...XAPI_CASES, ...ANALYTICS_CASES, ...METRIC_CASES, ...WATCH_CASES, ...LIFECYCLE_CASES];

// ---- the machinery ----------------------------------------------------------------------------------

function pathOf(c: Case, ctx: Ctx, params: Record<string, string>): { method: string; path: string } {
  const [method, template] = c.key.split(" ") as [string, string];
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (!value) throw new Error(`no value for {${name}} in ${c.key}`);
    return value;
  });
  const query = typeof c.query === "function" ? c.query(ctx) : (c.query ?? "");
  return { method, path: path + query };
}

/** A fresh token for the caller (partner A's people, or partner B's admin). */
function tokenOf(fx: MatrixFixture, caller: CallerName): Promise<string> {
  switch (caller) {
    case "admin":
      return freshAdminToken(fx.a);
    case "owner":
      return mintToken(fx.a.partner_id, fx.owner.account.id, false);
    case "instructor":
      return mintToken(fx.a.partner_id, fx.instructor.account.id, false);
    case "otherLearner":
      return mintToken(fx.a.partner_id, fx.other.account.id, false);
    case "otherPartnerAdmin":
      return freshAdminToken(fx.b);
  }
}

function expectedStatus(c: Case, caller: CallerName): number {
  // Partner B's admin names partner A's resource: it does not exist for B.
  if (caller === "otherPartnerAdmin" && c.subject !== null) return c.foreignStatus ?? 404;
  return allows(callerRules[c.key], factsOf(caller, c.subject)) ? c.success : 403;
}

async function runCell(c: Case, base: Omit<Ctx, "s">, expected: number): Promise<void> {
  const ctx: Ctx = { ...base, s: c.prepare ? await c.prepare(base) : {} };
  const body = c.body?.(ctx);
  const { method, path } = pathOf(c, ctx, c.params?.(ctx) ?? {});
  const res = await rawCall(method, path, { token: await tokenOf(ctx.fx, ctx.caller), body, headers: c.headers });
  const label = `${ctx.caller} ${method} ${path} -> ${res.status} ${JSON.stringify(res.body)?.slice(0, 300)}`;
  await expectCellOutcome(
    res,
    expected,
    label,
    () => c.onSuccess?.(ctx, res, body),
    () => c.unchanged?.(ctx, body),
  );
}

let fx: MatrixFixture;
beforeAll(async () => {
  fx = await newMatrixFixture();
});

const nameOf = (c: Case) => c.key;

describe("authorization matrix, all routes beyond the roster (callerRules)", () => {
  it("every callerRules row is covered by this matrix or the roster matrix, and each case is a row", () => {
    const keys = Object.keys(callerRules);
    const covered = new Set<string>(CASES.map((c) => c.key));
    const uncovered = keys.filter((k) => !ROSTER_ROUTE.test(k) && !covered.has(k));
    expect(uncovered, "callerRules rows covered by neither matrix: add a case to test/authorization/matrix-all.test.ts").toEqual([]);
    for (const c of CASES) {
      expect(keys).toContain(c.key);
      expect(ROSTER_ROUTE.test(c.key), `${c.key} belongs to the roster matrix`).toBe(false);
    }
    expect(new Set(CASES.map(nameOf)).size, "one case per row").toBe(CASES.length);
    // sanity: the roster pattern still matches its rows
    expect(keys.filter((k) => ROSTER_ROUTE.test(k)).length).toBeGreaterThanOrEqual(14);
  });

  it("derives the expected cells from the table (spot checks against spec 4.6 and docs/xapi.md)", () => {
    const row = (key: RouteKey) => CALLERS.map((caller) => expectedStatus(CASES.find((c) => c.key === key)!, caller));
    expect(row("POST /v0/registrations/{id}/graded-events")).toEqual([204, 204, 403, 403, 404]);
    // xAPI: the event endpoints' rule; another partner's registration is an unmappable statement (400)
    expect(row("POST /v0/xapi/statements")).toEqual([200, 200, 403, 403, 400]);
    expect(row("GET /v0/learning-instances/{id}/scoped-goals/{goal_id}")).toEqual([200, 403, 200, 403, 404]);
    expect(row("PUT /v0/learning-instances/{id}/scoped-goals/{goal_id}/registrations/{registration_id}")).toEqual([200, 403, 200, 403, 404]);
    expect(row("POST /v0/graphs")).toEqual([201, 403, 403, 403, 201]);
    expect(row("PUT /v0/graphs/{graph_id}")).toEqual([200, 403, 403, 403, 404]);
    expect(row("GET /v0/graphs/{graph_id}")).toEqual([200, 200, 200, 200, 404]);
    expect(row("GET /v0/graphs")).toEqual([200, 200, 200, 200, 200]);
    // spec 4.4 / 4.5
    expect(row("GET /v0/registrations/{id}/recommendation")).toEqual([200, 200, 403, 403, 404]);
    expect(row("POST /v0/learning-instances/{id}/metrics/status-and-progress")).toEqual([200, 403, 200, 403, 404]);
    expect(row("POST /v0/registrations/{id}/metrics/status-and-progress")).toEqual([200, 200, 200, 403, 404]);
    expect(row("POST /v0/accounts/metrics/predicted-score")).toEqual([200, 200, 200, 200, 404]);
    expect(row("POST /v0/learning-instances/{id}/metrics/groups")).toEqual([200, 403, 200, 403, 404]);
  });

  it("minted per-cell tokens act as the intended callers", async () => {
    const expected: Record<CallerName, string> = {
      admin: fx.a.admin_account_id,
      owner: fx.owner.account.id,
      instructor: fx.instructor.account.id,
      otherLearner: fx.other.account.id,
      otherPartnerAdmin: fx.b.admin_account_id,
    };
    for (const caller of CALLERS) {
      const res = await api("GET", "/v0/accounts/current", { token: await tokenOf(fx, caller) });
      expect(res.status).toBe(200);
      expect(res.body.id, caller).toBe(expected[caller]);
    }
    // the end users hold no graph entitlements (only the partner admin does)
    const owner = await adminGet(fx.sideA, `/v0/accounts/${fx.owner.account.id}`);
    expect(owner.body.entitlements ?? []).not.toContain("partner_graph_ingest");
  });

  for (const c of CASES) {
    it(`${nameOf(c)}: ${CALLERS.map((caller) => `${caller}=${expectedStatus(c, caller)}`).join(" ")}`, async () => {
      for (const caller of CALLERS) await runCell(c, { fx, side: fx.sideA, caller }, expectedStatus(c, caller));
    });
  }

  it("partner A's callers never reach partner B's resources (404, not 403) and change nothing", async () => {
    const callers: CallerName[] = ["admin", "owner", "instructor", "otherLearner"];
    for (const c of CASES.filter((c) => c.subject !== null)) {
      for (const caller of callers) await runCell(c, { fx, side: fx.sideB, caller }, c.foreignStatus ?? 404);
    }
  });

  it("a foreign graph, goal or registration is as missing as one that does not exist", async () => {
    const missing = crypto.randomUUID();
    const li = fx.sideA.world.li.id;
    const pairs: [string, string][] = [
      [`/v0/graphs/${fx.sideA.graph.id}`, `/v0/graphs/${missing}`],
      [goalPath(li, fx.sideA.goal.id), goalPath(missing, missing)],
      [assignmentPath(li, fx.sideA.goal.id, fx.sideA.world.ownerReg.id), assignmentPath(missing, missing, missing)],
    ];
    for (const [foreign, absent] of pairs) {
      const a = await rawCall("GET", foreign, { token: await freshAdminToken(fx.b) });
      const b = await rawCall("GET", absent, { token: await freshAdminToken(fx.b) });
      expect(a.status, foreign).toBe(404);
      expect(b.status, absent).toBe(404);
      expect(a.body.message).toBe(b.body.message);
    }
    const body = { module_id: "mref-a1", interaction_end_time: minutesAgo(1), is_correct: true };
    const a = await api("POST", "/v0/registrations/{id}/graded-events", { token: await freshAdminToken(fx.b), body, path: { id: fx.sideA.world.ownerReg.id } });
    const b = await api("POST", "/v0/registrations/{id}/graded-events", { token: await freshAdminToken(fx.b), body, path: { id: missing } });
    expect([a.status, b.status]).toEqual([404, 404]);
    expect(a.error.message).toBe(b.error.message);
  });
});
