import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
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
});
