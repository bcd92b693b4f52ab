import { beforeAll, describe, expect, it, vi } from "vitest";
import type { Schemas } from "../../client";
import { createAccount, type Json, newPartner } from "../support/api";
import { answers, type TutoringWorld, tutoringWorld } from "../support/tutoring";
import { api } from "../support/typed-api";

/** Spec 4.7 through the Worker, with the projections queue delivering for real. */

let w: TutoringWorld;
let accountId: string;

const request = (overrides: Json = {}) => ({
  account_ids: [accountId],
  graph_ids: ["gref-demo"],
  grouped_learning_objectives: [
    { group_id: "unit-1", learning_objectives: [{ learning_objective_id: "lref-c" }, { learning_objective_id: "lref-b", weight: 3 }] },
    { group_id: "unit-2", learning_objectives: [{ learning_objective_id: "lref-a" }] },
  ],
  confidence_levels: [90, 10, 50],
  ...overrides,
});
const score = (body: Schemas["PredictedScoreRequest"], token = w.p.adminToken) => api("POST", "/v0/accounts/metrics/predicted-score", { token, body });
/** Waits until the account's projection shows `n` distinct answered modules on lref-b (the queue's batch timeout is 1 s in tests). */
async function coverageOfB(expected: number): Promise<Json> {
  let last: Json = {};
  await vi.waitFor(
    async () => {
      const res = await score(
        request({
          get_learning_objective_scores: true,
          grouped_learning_objectives: [{ group_id: "b", learning_objectives: [{ learning_objective_id: "lref-b" }] }],
        }),
      );
      last = res.body;
      expect(res.body.account_scores[accountId]!.learning_objective_scores![0]!.learning_objective_coverage).toBe(expected);
    },
    { timeout: 15_000, interval: 250 },
  );
  return last;
}

beforeAll(async () => {
  w = await tutoringWorld();
  accountId = (await api("GET", "/v0/registrations/{reg_id}", { token: w.p.adminToken, path: { reg_id: w.reg.id } })).body.account_id;
});

describe("POST /v0/accounts/metrics/predicted-score", () => {
  it("answers every account with groups in request order, the grouped_scores alias, and no optional parts unless asked", async () => {
    const res = await score(request());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ code: 200, message: expect.any(String), error_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const a = res.body.account_scores[accountId]!;
    expect(a.group_scores.map((g: Json) => g.group_id)).toEqual(["unit-1", "unit-2"]);
    expect(a.grouped_scores).toEqual(a.group_scores);
    expect(a.learning_objective_scores).toBeUndefined();
    expect(a.overall_score).toBeUndefined();
    // levels in request order; a learner never seen gets the prior: no coverage
    expect(a.group_scores[0]!.scores.map((s: Json) => s.confidence_level)).toEqual([90, 10, 50]);
    expect(a.group_scores[0]!.group_learning_objective_coverage).toBe(0);
  });

  it("percentiles are non-decreasing in the level and stay below 1.0, also for a learner who answers everything right", async () => {
    const levels = [0, 1, 10, 25, 50, 75, 90, 99, 100];
    const strong = await tutoringWorld({ name: "G", adaptive_behavior: "practice", targets: { include: ["lref-a"] } }, w.p);
    await answers(
      strong,
      Array.from({ length: 40 }, (_, i): [string, boolean] => [`mref-a${1 + (i % 2)}`, true]),
    );
    const strongAccount = (await api("GET", "/v0/registrations/{reg_id}", { token: w.p.adminToken, path: { reg_id: strong.reg.id } })).body.account_id;
    let a: Json = {};
    await vi.waitFor(
      async () => {
        const res = await score(
          request({
            account_ids: [strongAccount],
            confidence_levels: levels,
            grouped_learning_objectives: [{ group_id: "a", learning_objectives: [{ learning_objective_id: "lref-a" }] }],
          }),
        );
        a = res.body.account_scores[strongAccount]!;
        expect(a.group_scores[0].group_learning_objective_coverage).toBe(0.5);
      },
      { timeout: 15_000, interval: 250 },
    );
    const values = a.group_scores[0].scores.map((s: Json) => s.predicted_score);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThanOrEqual(values[i - 1]);
    for (const v of values) expect(v).toBeLessThan(1);
    expect(values[4]).toBeGreaterThan(0.7); // the median of a learner with 40 right answers
  });

  it("coverage grows with distinct answered modules, not with a repeated one, and the requirement defaults to 4", async () => {
    await answers(w, [["mref-b1", true]]);
    await coverageOfB(0.25);
    await answers(w, [
      ["mref-b1", false],
      ["mref-b1", true],
    ]);
    await coverageOfB(0.25); // the same module again: still one distinct module
    await answers(w, [["mref-b2", true]]);
    const body = await coverageOfB(0.5);
    expect(body.account_scores[accountId].group_scores[0].group_learning_objective_coverage).toBe(0.5);
    const strict = await score(request({ learning_objective_coverage_requirement: 8, get_learning_objective_scores: true }));
    const b = strict.body.account_scores[accountId]!.learning_objective_scores!.find((o: Json) => o.learning_objective_id === "lref-b");
    expect(b!.learning_objective_coverage).toBe(0.25);
  });

  it("per-objective scores are ordered by objective id, ignore weights; the overall score equals the group score with one group", async () => {
    const res = await score(request({ get_learning_objective_scores: true, get_overall_score: true }));
    const a = res.body.account_scores[accountId]!;
    expect(a.learning_objective_scores!.map((o: Json) => [o.learning_objective_id, o.graph_id])).toEqual([
      ["lref-a", "gref-demo"],
      ["lref-b", "gref-demo"],
      ["lref-c", "gref-demo"],
    ]);
    const weighted = await score(
      request({
        get_learning_objective_scores: true,
        grouped_learning_objectives: [
          { group_id: "x", learning_objectives: [{ learning_objective_id: "lref-b", weight: 7 }, { learning_objective_id: "lref-a" }] },
        ],
      }),
    );
    const objectiveB = (body: Json) => body.account_scores[accountId].learning_objective_scores.find((o: Json) => o.learning_objective_id === "lref-b");
    expect(objectiveB(weighted.body)).toEqual(objectiveB(res.body));
    expect(typeof a.overall_learning_objective_coverage).toBe("number");
    const single = await score(
      request({ get_overall_score: true, grouped_learning_objectives: [{ group_id: "only", learning_objectives: [{ learning_objective_id: "lref-c" }] }] }),
    );
    expect(single.body.account_scores[accountId]!.overall_score).toEqual(single.body.account_scores[accountId]!.group_scores[0]!.scores);
  });

  it("validates every field: one graph, known graph and objectives, levels, weights, groups; another partner's account is 404", async () => {
    const bad400: Schemas["PredictedScoreRequest"][] = [
      request({ graph_ids: ["gref-demo", "gref-other"] }),
      request({ graph_ids: [] }),
      request({ confidence_levels: [101] }),
      request({ confidence_levels: [-1] }),
      request({ confidence_levels: [] }),
      request({ grouped_learning_objectives: [{ group_id: "g", learning_objectives: [{ learning_objective_id: "lref-a", weight: 0 }] }] }),
      request({ grouped_learning_objectives: [{ group_id: "g", learning_objectives: [{ learning_objective_id: "lref-a", weight: 1.5 }] }] }),
      request({
        grouped_learning_objectives: [
          { group_id: "same", learning_objectives: [{ learning_objective_id: "lref-a" }] },
          { group_id: "same", learning_objectives: [{ learning_objective_id: "lref-b" }] },
        ],
      }),
      request({ account_ids: ["nope"] }),
      request({ learning_objective_coverage_requirement: 0 }),
      // no control, bidi or zero-width characters in partner-chosen ids (docs/security.md "Controls")
      request({ grouped_learning_objectives: [{ group_id: "unit\u202E1", learning_objectives: [{ learning_objective_id: "lref-a" }] }] }),
      request({ grouped_learning_objectives: [{ group_id: "u", learning_objectives: [{ learning_objective_id: "lref-a\u200B" }] }] }),
    ];
    for (const body of bad400) expect((await score(body)).status, JSON.stringify(body)).toBe(400);
    const unknownGraph = await score(request({ graph_ids: ["gref-nope"] }));
    expect(unknownGraph.status).toBe(422);
    expect(unknownGraph.error.details![0]!.path).toBe("body.graph_ids[0]");
    const unknownObjective = await score(
      request({ grouped_learning_objectives: [{ group_id: "g", learning_objectives: [{ learning_objective_id: "lref-zz" }] }] }),
    );
    expect(unknownObjective.status).toBe(422);
    expect(unknownObjective.error.details).toEqual([
      { path: "body.grouped_learning_objectives[0].learning_objectives[0].learning_objective_id", message: expect.stringContaining("lref-zz") },
    ]);
    const other = await newPartner("Other partner");
    const foreign = await createAccount(other);
    const res = await score(request({ account_ids: [accountId, foreign.id] }));
    expect(res.status).toBe(404);
    expect(res.error.details).toEqual([{ path: "body.account_ids[1]", message: expect.any(String) }]);
    const missing = await score(request({ account_ids: [crypto.randomUUID()] }));
    expect(missing.status).toBe(404);
  });

  it("is open to any user of the partner (an end user's token too)", async () => {
    const learner = await createAccount(w.p);
    const token = await w.p.tokenFor(learner.external_user_id);
    expect((await score(request(), token)).status).toBe(200);
  });
});
