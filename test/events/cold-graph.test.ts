import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { syntheticGraph } from "../../bench/lib/synthetic-graph";
import { clearGraphCache } from "../../src/reads/graph-versions";
import { clearItemParamsCache } from "../../src/reads/item-params";
import { createAccount, createGraph, createInstance, newPartner, type Partner, register } from "../support/api";
import { fetchWith } from "../support/app";
import { interceptD1 } from "../support/d1-intercept";
import { api } from "../support/typed-api";

/**
 * A class that starts at once on a graph no isolate has loaded yet: every registration's object
 * needs the same graph and item parameters at the same moment. On Cloudflare all objects of a class
 * (and the Worker's requests) may share one isolate, as they do here. A read started by one of them
 * must never be awaited by another: if the one that started it goes away first, the others' work
 * continues in the wrong context ("Cannot perform I/O on behalf of a different Durable Object": 503)
 * or never continues. Only resolved plain values may be shared.
 */
async function coldClass(learners: number) {
  const p = await newPartner();
  const doc = syntheticGraph(3000, 300, `gref-cold-${crypto.randomUUID().slice(0, 8)}`);
  await createGraph(p, doc);
  const li = await createInstance(p, { graph_id: doc.label, name: "Class start" });
  const regs: string[] = [];
  for (let i = 0; i < learners; i++) regs.push((await register(p, (await createAccount(p)).id, li.id, "learner")).id);
  clearGraphCache();
  clearItemParamsCache();
  return { p, doc, regs, account: (await createAccount(p)).id };
}

const firstAnswers = (p: Partner, regs: string[], at: string) =>
  Promise.all(
    regs.map((reg, i) =>
      api("POST", "/v0/registrations/{id}/graded-events", {
        token: p.adminToken,
        body: { module_id: `mref-m${1 + ((i * 7) % 2999)}`, interaction_end_time: at, is_correct: i % 2 === 0 },
        path: { id: reg },
      }),
    ),
  );

const within = <T>(ms: number, work: Promise<T>) => Promise.race([work, new Promise<"timed out">((resolve) => setTimeout(() => resolve("timed out"), ms))]);

describe("many registrations of one cold graph", () => {
  it("take their first answers concurrently, none answered with a 5xx", async () => {
    const { p, regs } = await coldClass(40);
    const answers = await firstAnswers(p, regs, new Date(Date.now() - 60_000).toISOString());
    expect(answers.filter((a) => a.status !== 204).map((a) => [a.status, a.body])).toEqual([]);
  });

  it("are not held up by a read of the same graph that another request started and never finished", async () => {
    const { p, doc, regs, account } = await coldClass(12);
    // Another request (here a predicted score) starts reading the graph and its item parameters,
    // then stalls: it stands for a request or object whose context went away mid-read.
    let release = () => {};
    const stalled = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reading = () => {};
    const started = new Promise<void>((resolve) => {
      reading = resolve;
    });
    const db = interceptD1(env.DB, {
      before: async (sql) => {
        if (/graph_blobs|item_params/.test(sql)) {
          reading();
          await stalled;
        }
      },
    });
    const other = fetchWith({ DB: db }, "/v0/accounts/metrics/predicted-score", {
      method: "POST",
      headers: { Authorization: `Bearer ${p.adminToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        account_ids: [account],
        confidence_levels: [50],
        graph_ids: [doc.label],
        grouped_learning_objectives: [{ group_id: "g", learning_objectives: [{ learning_objective_id: "lref-o1" }] }],
      }),
    });
    const early = await Promise.race([started.then(() => undefined), other]);
    if (early) throw new Error(`the other request finished without reading: ${early.status} ${await early.text()}`);
    try {
      const answers = await within(15_000, firstAnswers(p, regs, new Date(Date.now() - 60_000).toISOString()));
      expect(answers === "timed out" ? "timed out" : answers.filter((a) => a.status !== 204).map((a) => [a.status, a.body])).toEqual([]);
    } finally {
      release();
      expect((await other).status).toBe(200);
    }
  });
});
