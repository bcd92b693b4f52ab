import { beforeAll, describe, expect, it } from "vitest";
import { callerRules, type Role, type RouteKey } from "../../src/http/caller-rules";
import { createAccount, type Json, uniqueId } from "../support/api";
import { type ApiResponse, rawCall } from "../support/raw-call";
import { api } from "../support/typed-api";
import {
  allows,
  type CallerName,
  expectCellOutcome,
  expectErrorBody,
  type Fixture,
  factsOf,
  newFixture,
  newMember,
  newWorld,
  ROSTER_ROUTE,
  type SubjectKind,
  type World,
} from "./fixture";

/**
 * The authorization matrix of the roster endpoints (ROSTER_ROUTE), called by each
 * kind of caller, with the expected status derived from the roles in `callerRules` (the table the
 * middleware uses). A resource of another partner is always 404, never 403; a refused request
 * changes nothing.
 */

const CALLERS: CallerName[] = ["admin", "owner", "instructor", "otherLearner", "otherPartnerAdmin"];

interface Ctx {
  fx: Fixture;
  w: World;
  caller: CallerName;
}

interface Case {
  key: RouteKey;
  /** a variant of the row (same key, different request) */
  variant?: string;
  /** where the spec narrows the row by request content */
  roles?: readonly Role[];
  success: number;
  subject: SubjectKind;
  /** the request destroys its target when allowed: every cell gets a fresh world */
  destructive?: boolean;
  /** a fresh owner account (with token) in the fresh world */
  freshOwner?: boolean;
  params?(ctx: Ctx): Record<string, string>;
  body?(ctx: Ctx): Promise<unknown> | unknown;
  /** extra checks on a 2xx answer */
  onSuccess?(ctx: Ctx, res: ApiResponse, body: any): Promise<void> | void;
  /** after a refused request: prove nothing changed */
  unchanged?(ctx: Ctx, body: any): Promise<void>;
}

const adminGet = async (ctx: Ctx, path: string) => rawCall("GET", path, { token: ctx.w.partner.adminToken });

const CASES: Case[] = [
  {
    key: "POST /v0/accounts",
    success: 201,
    subject: null,
    body: () => ({ external_user_id: uniqueId("m") }),
    onSuccess: async (ctx, res, body) => {
      expect(res.body.external_user_id).toBe(body.external_user_id);
      if (ctx.caller === "otherPartnerAdmin") {
        // created in partner B: the same external_user_id is still free in partner A
        await createAccount(ctx.fx.a, body.external_user_id);
      }
    },
    unchanged: async (ctx, body) => {
      await createAccount(ctx.fx.a, body.external_user_id);
    },
  },
  {
    key: "POST /v0/batch",
    success: 200,
    subject: null,
    body: () => ({ requests: [{ method: "post", relative_url: "/accounts", body: { external_user_id: uniqueId("mb") } }] }),
    onSuccess: async (ctx, res, body) => {
      expect(res.body.responses).toHaveLength(1);
      expect(res.body.responses[0].code).toBe(201);
      if (ctx.caller === "otherPartnerAdmin") await createAccount(ctx.fx.a, body.requests[0].body.external_user_id);
    },
    unchanged: async (ctx, body) => {
      await createAccount(ctx.fx.a, body.requests[0].body.external_user_id);
    },
  },
  {
    key: "GET /v0/accounts/current",
    success: 200,
    subject: null,
    onSuccess: (ctx, res) => {
      const expected = {
        admin: ctx.fx.a.admin_account_id,
        owner: ctx.fx.owner.account.id,
        instructor: ctx.fx.instructor.account.id,
        otherLearner: ctx.fx.other.account.id,
        otherPartnerAdmin: ctx.fx.b.admin_account_id,
      }[ctx.caller];
      expect(res.body.id).toBe(expected);
    },
  },
  {
    key: "GET /v0/accounts/{account_id}",
    success: 200,
    subject: "account",
    params: (ctx) => ({ account_id: ctx.w.ownerAccount.id }),
    onSuccess: (ctx, res) => expect(res.body).toMatchObject({ id: ctx.w.ownerAccount.id, external_user_id: ctx.w.ownerAccount.external_user_id }),
  },
  {
    key: "DELETE /v0/accounts/{account_id}",
    success: 204,
    subject: "account",
    destructive: true,
    freshOwner: true,
    params: (ctx) => ({ account_id: ctx.w.ownerAccount.id }),
    onSuccess: async (ctx) => {
      // disabled: the owner's token stops working at once
      expect((await api("GET", "/v0/accounts/current", { token: ctx.w.ownerToken })).status).toBe(401);
    },
    unchanged: async (ctx) => {
      expect((await adminGet(ctx, `/v0/accounts/${ctx.w.ownerAccount.id}`)).status).toBe(200);
      if (ctx.w.ownerToken) expect((await api("GET", "/v0/accounts/current", { token: ctx.w.ownerToken })).status).toBe(200);
    },
  },
  {
    key: "POST /v0/learning-instances",
    success: 201,
    subject: null,
    body: (ctx) => ({ graph_id: ctx.fx.world.li.graph_id, name: `Course ${uniqueId("li")}` }),
    onSuccess: (_ctx, res, body) => expect(res.body).toMatchObject({ name: body.name, in_progress: true }),
    unchanged: async (ctx, body) => {
      const list = await adminGet(ctx, "/v0/learning-instances?limit=500");
      expect(list.body.map((li: Json) => li.name)).not.toContain(body.name);
    },
  },
  {
    key: "GET /v0/learning-instances",
    success: 200,
    subject: null,
    onSuccess: (ctx, res) => {
      const ids = (res.body as Json[]).map((li) => li.id);
      if (ctx.caller === "otherPartnerAdmin") {
        expect(ids).toContain(ctx.fx.bWorld.li.id);
        expect(ids).not.toContain(ctx.fx.world.li.id);
      } else {
        expect(ids).toContain(ctx.fx.world.li.id);
        expect(ids).not.toContain(ctx.fx.bWorld.li.id);
      }
    },
  },
  {
    key: "GET /v0/learning-instances/{id}",
    success: 200,
    subject: "instance",
    params: (ctx) => ({ id: ctx.w.li.id }),
    onSuccess: (ctx, res) => expect(res.body.id).toBe(ctx.w.li.id),
  },
  {
    key: "PUT /v0/learning-instances/{id}",
    success: 200,
    subject: "instance",
    destructive: true,
    params: (ctx) => ({ id: ctx.w.li.id }),
    body: (ctx) => ({ name: `Renamed by ${ctx.caller}` }),
    onSuccess: (ctx, res) => expect(res.body.name).toBe(`Renamed by ${ctx.caller}`),
    unchanged: async (ctx) => {
      expect((await adminGet(ctx, `/v0/learning-instances/${ctx.w.li.id}`)).body.name).toBe(ctx.w.li.name);
    },
  },
  {
    key: "DELETE /v0/learning-instances/{id}",
    success: 204,
    subject: "instance",
    destructive: true,
    params: (ctx) => ({ id: ctx.w.li.id }),
    onSuccess: async (ctx) => {
      expect((await adminGet(ctx, `/v0/learning-instances/${ctx.w.li.id}`)).status).toBe(404);
    },
    unchanged: async (ctx) => {
      expect((await adminGet(ctx, `/v0/learning-instances/${ctx.w.li.id}`)).status).toBe(200);
      expect((await adminGet(ctx, `/v0/learning-instances/${ctx.w.li.id}/registrations`)).body).toHaveLength(3);
    },
  },
  {
    key: "GET /v0/learning-instances/{li_id}/registrations",
    success: 200,
    subject: "instance",
    params: (ctx) => ({ li_id: ctx.w.li.id }),
    onSuccess: (ctx, res) => {
      expect((res.body as Json[]).map((r) => r.id).sort()).toEqual([ctx.w.ownerReg.id, ctx.w.instructorReg.id, ctx.w.otherReg.id].sort());
    },
  },
  {
    key: "POST /v0/registrations",
    variant: "type learner",
    success: 201,
    subject: "instance",
    body: async (ctx) => ({ account_id: (await createAccount(ctx.w.partner)).id, learning_instance_id: ctx.w.li.id, type: "learner" }),
    onSuccess: (_ctx, res, body) => expect(res.body).toMatchObject(body),
    unchanged: async (ctx, body) => {
      const regs = await adminGet(ctx, `/v0/learning-instances/${ctx.w.li.id}/registrations`);
      expect((regs.body as Json[]).map((r) => r.account_id)).not.toContain(body.account_id);
    },
  },
  {
    key: "POST /v0/registrations",
    variant: "type instructor",
    // spec 4.3: creating an instructor registration is Admin only (the handler narrows the row)
    roles: ["admin"],
    success: 201,
    subject: "instance",
    body: async (ctx) => ({ account_id: (await createAccount(ctx.w.partner)).id, learning_instance_id: ctx.w.li.id, type: "instructor" }),
    onSuccess: (_ctx, res, body) => expect(res.body).toMatchObject(body),
    unchanged: async (ctx, body) => {
      const regs = await adminGet(ctx, `/v0/learning-instances/${ctx.w.li.id}/registrations`);
      expect((regs.body as Json[]).map((r) => r.account_id)).not.toContain(body.account_id);
    },
  },
  {
    key: "GET /v0/registrations/{reg_id}",
    success: 200,
    subject: "registration",
    params: (ctx) => ({ reg_id: ctx.w.ownerReg.id }),
    onSuccess: (ctx, res) => expect(res.body).toEqual(ctx.w.ownerReg),
  },
  {
    key: "DELETE /v0/registrations/{reg_id}",
    success: 204,
    subject: "registration",
    destructive: true,
    params: (ctx) => ({ reg_id: ctx.w.ownerReg.id }),
    onSuccess: async (ctx) => {
      expect((await adminGet(ctx, `/v0/registrations/${ctx.w.ownerReg.id}`)).status).toBe(404);
    },
    unchanged: async (ctx) => {
      expect((await adminGet(ctx, `/v0/registrations/${ctx.w.ownerReg.id}`)).status).toBe(200);
    },
  },
];

function pathOf(key: RouteKey, params: Record<string, string>): { method: string; path: string } {
  const [method, template] = key.split(" ") as [string, string];
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (!value) throw new Error(`no value for {${name}} in ${key}`);
    return value;
  });
  return { method, path };
}

function tokenOf(ctx: Ctx): string {
  switch (ctx.caller) {
    case "admin":
      return ctx.fx.a.adminToken;
    case "owner":
      return ctx.w.ownerToken ?? ctx.fx.owner.token;
    case "instructor":
      return ctx.fx.instructor.token;
    case "otherLearner":
      return ctx.fx.other.token;
    case "otherPartnerAdmin":
      return ctx.fx.b.adminToken;
  }
}

function expectedStatus(c: Case, caller: CallerName): number {
  const roles = c.roles ?? callerRules[c.key];
  // Partner B's admin names partner A's resource: it does not exist for B.
  if (caller === "otherPartnerAdmin" && c.subject !== null) return 404;
  return allows(roles, factsOf(caller, c.subject)) ? c.success : 403;
}

async function runCell(fx: Fixture, c: Case, caller: CallerName, w: World, expected: number): Promise<void> {
  const ctx: Ctx = { fx, w, caller };
  const body = c.body ? await c.body(ctx) : undefined;
  const { method, path } = pathOf(c.key, c.params?.(ctx) ?? {});
  const res = await rawCall(method, path, { token: tokenOf(ctx), body });
  const label = `${caller} ${method} ${path} -> ${JSON.stringify(res.body)}`;
  await expectCellOutcome(
    res,
    expected,
    label,
    () => c.onSuccess?.(ctx, res, body),
    () => c.unchanged?.(ctx, body),
  );
}

let fx: Fixture;
beforeAll(async () => {
  fx = await newFixture();
});

async function freshWorld(c: Case): Promise<World> {
  const owner = c.freshOwner ? await newMember(fx.a) : fx.owner;
  return newWorld(fx.a, { owner: owner.account, ownerToken: owner.token, instructor: fx.instructor.account, other: fx.other.account });
}

describe("authorization matrix (callerRules)", () => {
  it("covers every roster route of callerRules, and nothing that is not in it", () => {
    const rosterKeys = Object.keys(callerRules).filter((k) => ROSTER_ROUTE.test(k));
    const covered = new Set(CASES.map((c) => c.key));
    expect(
      rosterKeys.filter((k) => !covered.has(k as RouteKey)),
      "callerRules rows without a matrix case",
    ).toEqual([]);
    for (const c of CASES) expect(Object.keys(callerRules)).toContain(c.key);
    // sanity: the derivation is not vacuous
    expect(rosterKeys.length).toBeGreaterThanOrEqual(14);
  });

  it("derives the expected cells from the table (spot checks against the spec's text)", () => {
    const byKey = (key: RouteKey, variant?: string) => CASES.find((c) => c.key === key && c.variant === variant)!;
    expect(CALLERS.map((c) => expectedStatus(byKey("GET /v0/registrations/{reg_id}"), c))).toEqual([200, 200, 200, 403, 404]);
    expect(CALLERS.map((c) => expectedStatus(byKey("POST /v0/registrations", "type instructor"), c))).toEqual([201, 403, 403, 403, 404]);
    expect(CALLERS.map((c) => expectedStatus(byKey("POST /v0/registrations", "type learner"), c))).toEqual([201, 403, 201, 403, 404]);
    expect(CALLERS.map((c) => expectedStatus(byKey("GET /v0/accounts/{account_id}"), c))).toEqual([200, 200, 403, 403, 404]);
    expect(CALLERS.map((c) => expectedStatus(byKey("GET /v0/learning-instances/{id}"), c))).toEqual([200, 200, 200, 200, 404]);
  });

  for (const c of CASES) {
    const name = c.variant ? `${c.key} (${c.variant})` : c.key;
    it(`${name}: ${CALLERS.map((caller) => `${caller}=${expectedStatus(c, caller)}`).join(" ")}`, async () => {
      for (const caller of CALLERS) {
        const w = c.destructive ? await freshWorld(c) : fx.world;
        await runCell(fx, c, caller, w, expectedStatus(c, caller));
      }
    });
  }

  it("partner A's callers never reach partner B's resources (404, not 403) and change nothing", async () => {
    const callers: CallerName[] = ["admin", "owner", "instructor", "otherLearner"];
    for (const c of CASES.filter((c) => c.subject !== null)) {
      for (const caller of callers) {
        const ctx: Ctx = { fx, w: fx.bWorld, caller };
        const body = c.body ? await c.body(ctx) : undefined;
        const { method, path } = pathOf(c.key, c.params?.(ctx) ?? {});
        const res = await rawCall(method, path, { token: tokenOf({ ...ctx, w: fx.world }), body });
        expect(res.status, `${caller} ${method} ${path}`).toBe(404);
        expectErrorBody(res, 404);
        await c.unchanged?.(ctx, body);
      }
    }
  });

  it("a foreign resource's 404 is indistinguishable from a missing one", async () => {
    const missing = crypto.randomUUID();
    for (const [kind, foreign] of [
      ["accounts", fx.world.ownerAccount.id],
      ["learning-instances", fx.world.li.id],
      ["registrations", fx.world.ownerReg.id],
    ] as const) {
      const a = await rawCall("GET", `/v0/${kind}/${foreign}`, { token: fx.b.adminToken });
      const b = await rawCall("GET", `/v0/${kind}/${missing}`, { token: fx.b.adminToken });
      expect(a.status).toBe(404);
      expect(b.status).toBe(404);
      expect(a.body.message).toBe(b.body.message);
    }
  });
});
