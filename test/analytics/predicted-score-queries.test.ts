import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { addAnswered } from "../../src/analytics/coverage-sketch";
import { openDb } from "../../src/db/client";
import { predictedScoreFor } from "../../src/services/predicted-score";
import { createAccount, ensureDemoGraph, newPartner } from "../support/api";
import { interceptD1 } from "../support/d1-intercept";

/** A D1 binding that counts the statements run through it (in a batch: each of its statements). */
function countingD1(d1: D1Database): { db: D1Database; count: () => number } {
  let n = 0;
  return { db: interceptD1(d1, { before: () => void n++ }), count: () => n };
}

describe("predicted score: D1 queries per request", () => {
  it("are a small constant, the same for 1 and for 60 accounts (never one per account)", async () => {
    const p = await newPartner("Query count partner");
    await ensureDemoGraph(p);
    const accounts = [];
    for (let i = 0; i < 60; i++) accounts.push((await createAccount(p)).id);
    const body = (ids: string[]) => ({
      account_ids: ids,
      graph_ids: ["gref-demo"],
      grouped_learning_objectives: [{ group_id: "g", learning_objectives: [{ learning_objective_id: "lref-a" }, { learning_objective_id: "lref-c" }] }],
      confidence_levels: [10, 50, 90],
      get_overall_score: true,
      get_learning_objective_scores: true,
      learning_objective_coverage_requirement: 4,
    });
    // warm the isolate's caches (runtime graph, item parameters) as a live Worker has them
    await predictedScoreFor(openDb(env.DB), p.partner_id, body(accounts.slice(0, 1)));
    const counts: number[] = [];
    for (const ids of [accounts.slice(0, 1), accounts]) {
      const counting = countingD1(env.DB);
      const res = await predictedScoreFor(openDb(counting.db), p.partner_id, body(ids));
      expect(Object.keys(res.account_scores)).toHaveLength(ids.length);
      counts.push(counting.count());
    }
    console.log(`D1 statements per predicted-score request: ${counts.join(" (1 account), ")} (60 accounts)`);
    expect(counts[0]).toBe(counts[1]);
    expect(counts[1]).toBeLessThanOrEqual(4);
  });

  it("reads an account's projection only when its scores are not kept, and computes a new revision at once", async () => {
    const p = await newPartner("Kept scores partner");
    const graph = await ensureDemoGraph(p);
    const account = (await createAccount(p)).id;
    const body = {
      account_ids: [account],
      graph_ids: ["gref-demo"],
      grouped_learning_objectives: [{ group_id: "g", learning_objectives: [{ learning_objective_id: "lref-a" }] }],
      confidence_levels: [50],
      get_overall_score: false,
      get_learning_objective_scores: true,
      learning_objective_coverage_requirement: 4,
    };
    const project = (revision: number, modules: string[]) =>
      env.DB.prepare(
        "INSERT INTO account_projections (account_id, graph_id, body, revision, updated_at) VALUES (?, ?, ?, ?, 0) ON CONFLICT DO UPDATE SET body = excluded.body, revision = excluded.revision",
      )
        .bind(
          account,
          graph.id,
          JSON.stringify({
            version: 1,
            accountId: account,
            graphId: graph.id,
            registrations: {},
            objectives: { "lref-a": { beliefs: {}, answered: modules.reduce<number[]>((s, m) => addAnswered(s, m), []) } },
            lastActivity: 0,
          }),
          revision,
        )
        .run();
    const coverageAt = async (nowMs: number) => {
      const counting = countingD1(env.DB);
      const res = await predictedScoreFor(openDb(counting.db), p.partner_id, body, nowMs);
      return { coverage: res.account_scores[account]!.learning_objective_scores![0]!.learning_objective_coverage, statements: counting.count() };
    };
    const t = Date.now();
    // warm the isolate's caches (runtime graph, item parameters) as a live Worker has them
    expect(await coverageAt(t)).toMatchObject({ coverage: 0 });
    // the graph and the accounts' revisions in one batch (2), the projection (1)
    await project(1, ["m1"]);
    expect(await coverageAt(t)).toEqual({ coverage: 0.25, statements: 3 });
    // kept: the projection is not read again, the same answer
    expect(await coverageAt(t + 1_000)).toEqual({ coverage: 0.25, statements: 2 });
    // a new revision is read and computed at once, within the interval
    await project(2, ["m1", "m2"]);
    expect(await coverageAt(t + 2_000)).toEqual({ coverage: 0.5, statements: 3 });
  });
});
