import { beforeAll, describe, expect, it } from "vitest";
import type { Schemas } from "../../client";
import { expectErrorBody } from "../core-api/fixture";
import { uniqueId } from "../support/api";
import type { ApiResponse } from "../support/raw-call";
import { type TutoringWorld, tutoringWorld } from "../support/tutoring";
import { api } from "../support/typed-api";

/**
 * docs/security.md "Limits" and "Controls": predicted score refuses work over its limits with 422
 * naming the limit; identifiers are judged by Unicode category and NFC; every date lies in
 * 1970..2100; metrics rows refuse objective ids the graph does not have.
 */

let w: TutoringWorld;
beforeAll(async () => {
  w = await tutoringWorld();
});

const accounts = (n: number) => Array.from({ length: n }, () => crypto.randomUUID());
const objectives = (n: number, prefix = "") => Array.from({ length: n }, (_, i) => ({ learning_objective_id: `lref-${prefix}${i}` }));
const levels = (n: number) => Array.from({ length: n }, (_, i) => i);
const predicted = (body: Schemas["PredictedScoreRequest"]) => api("POST", "/v0/accounts/metrics/predicted-score", { token: w.p.adminToken, body });

function expectLimit(res: ApiResponse, names: RegExp) {
  expectErrorBody(res, 422);
  expect(JSON.stringify(res.body.details)).toMatch(names);
}

describe("predicted score: bounded work, 422 naming the limit", () => {
  it("a request far over the limits (500 accounts, 100 groups of 20 objectives, levels 0..100) is refused at once", async () => {
    const res = await predicted({
      account_ids: accounts(500),
      graph_ids: ["gref-demo"],
      grouped_learning_objectives: Array.from({ length: 100 }, (_, g) => ({ group_id: `g${g}`, learning_objectives: objectives(20, `${g}-`) })),
      confidence_levels: levels(101),
      get_learning_objective_scores: true,
    });
    expectLimit(res, /at most 20 groups/);
    expect(JSON.stringify(res.error.details)).toMatch(/at most 11 confidence levels/);
    expect(JSON.stringify(res.error.details)).toMatch(/at most 200 distinct objectives/);
  });

  it("each single limit: accounts, groups, objectives per group, levels", async () => {
    const base = {
      account_ids: accounts(1),
      graph_ids: ["gref-demo"],
      grouped_learning_objectives: [{ group_id: "g", learning_objectives: objectives(1) }],
      confidence_levels: [50],
    };
    expectLimit(await predicted({ ...base, account_ids: accounts(501) }), /at most 500 account_ids/);
    expectLimit(
      await predicted({
        ...base,
        grouped_learning_objectives: Array.from({ length: 21 }, (_, g) => ({ group_id: `g${g}`, learning_objectives: objectives(1) })),
      }),
      /at most 20 groups/,
    );
    expectLimit(
      await predicted({ ...base, grouped_learning_objectives: [{ group_id: "g", learning_objectives: objectives(201) }] }),
      /at most 200 objectives in one group/,
    );
    expectLimit(await predicted({ ...base, confidence_levels: levels(12) }), /at most 11 confidence levels/);
  });

  it("the two products: accounts × distinct objectives ≤ 10,000 and accounts × (groups + objectives + 1) × levels ≤ 50,000", async () => {
    const many = { graph_ids: ["gref-demo"], confidence_levels: [50] };
    // 101 × 100 = 10,100 distinct (account, objective) pairs
    expectLimit(
      await predicted({ ...many, account_ids: accounts(101), grouped_learning_objectives: [{ group_id: "g", learning_objectives: objectives(100) }] }),
      /accounts × distinct objectives must be at most 10000/,
    );
    // 500 × (1 + 20 + 1) × 11 = 121,000 score lists
    expectLimit(
      await predicted({
        ...many,
        account_ids: accounts(500),
        grouped_learning_objectives: [{ group_id: "g", learning_objectives: objectives(20) }],
        confidence_levels: levels(11),
      }),
      /accounts × \(groups \+ distinct objectives \+ 1\) × confidence levels must be at most 50000/,
    );
  });

  it("a request inside every limit is answered (not refused for its size)", async () => {
    const accountId = (await api("GET", "/v0/registrations/{reg_id}", { token: w.p.adminToken, path: { reg_id: w.reg.id } })).body.account_id;
    const res = await predicted({
      account_ids: [accountId],
      graph_ids: ["gref-demo"],
      grouped_learning_objectives: [{ group_id: "all", learning_objectives: ["a", "b", "c", "d"].map((x) => ({ learning_objective_id: `lref-${x}` })) }],
      confidence_levels: levels(11),
      get_learning_objective_scores: true,
      get_overall_score: true,
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
    expect(res.body.account_scores[accountId]!.learning_objective_scores).toHaveLength(4);
  });
});

describe("identifiers: Unicode category and NFC (400 with the path)", () => {
  const create = (external_user_id: string) => api("POST", "/v0/accounts", { token: w.p.adminToken, body: { external_user_id } });

  it.each([
    ["a tag character", "tag\u{E0041}x"],
    ["a variation selector", "star\uFE0Fx"],
    ["a line separator", "line\u2028x"],
    ["a no-break space", "no\u00A0break"],
    ["a private-use character", "pua\uE000x"],
    ["an unnormalised combining accent", "jose\u0301"],
  ])("refuses %s", async (_what, id) => {
    const res = await create(`${uniqueId()}-${id}`);
    expectErrorBody(res, 400);
    expect(res.error.details![0]!.path).toBe("body.external_user_id");
  });

  it("accepts composed letters, other scripts and a plain space", async () => {
    for (const id of ["jos\u00E9", "学生", "ana maria"]) expect((await create(`${uniqueId()}-${id}`)).status).toBe(201);
  });
});

describe("one date range, 1970..2100, for every date field", () => {
  const activeTime = (start_date: string, end_date: string) =>
    api("POST", "/v0/registrations/{id}/metrics/active-time/rows", { token: w.p.adminToken, body: { start_date, end_date }, path: { id: w.reg.id } });

  it.each([
    ["0001-01-01", "0001-01-07"],
    ["9999-12-25", "9999-12-31"],
    ["1969-12-31", "1969-12-31"],
  ])("active-time %s..%s → 400", async (start, end) => {
    const res = await activeTime(start, end);
    expectErrorBody(res, 400);
  });

  it("accepts the edges of the range", async () => {
    expect((await activeTime("1970-01-01", "1970-01-01")).status).toBe(200);
    expect((await activeTime("2100-12-31", "2100-12-31")).status).toBe(200);
  });
});

describe("objective ids checked against the graph", () => {
  it("proficiency rows with an objective the graph does not have → 422 naming it, as predicted score", async () => {
    const res = await api("POST", "/v0/learning-instances/{id}/metrics/proficiency/rows", {
      token: w.p.adminToken,
      body: { learning_objective_ids: ["lref-a", "lref-nope"] },
      path: { id: w.li.id },
    });
    expectErrorBody(res, 422);
    expect(res.error.details).toEqual([expect.objectContaining({ path: "body.learning_objective_ids[1]" })]);
    const row = await api("POST", "/v0/registrations/{id}/metrics/proficiency/rows", {
      token: w.p.adminToken,
      body: { learning_objective_ids: ["lref-nope", "lref-a"] },
      path: { id: w.reg.id },
    });
    expectErrorBody(row, 422);
    expect(row.error.details).toEqual([expect.objectContaining({ path: "body.learning_objective_ids[0]" })]);
  });
});
