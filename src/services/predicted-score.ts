import { and, eq, isNull, sql } from "drizzle-orm";
import { type AccountGraphProjection, type AccountScores, predictedScoreSteps } from "../analytics";
import { inList } from "../db/bound-list";
import type { Db } from "../db/client";
import { accountProjections, accounts, graphs } from "../db/schema";
import { ApiError, unprocessable } from "../errors";
import { SERVICE_PARAMS } from "../model/service-params";
import { loadRuntimeGraph } from "../reads/graph-versions";
import { itemPoolsFor, loadItemParams } from "../reads/item-params";
import type { ErrorDetail } from "../schemas/common";
import type { PredictedScoreRequest } from "../schemas/predicted-score";
import { graphMatch } from "./graph-store";
import { checkAnswerSize } from "./predicted-score-size";
import { keepScores, keptScores } from "./score-memo";
import { WorkSlice } from "./work-slice";

/**
 * Work (predictedScoreSteps' units: a distribution's terms plus 10) between two yields to the isolate's
 * other requests: about a millisecond of computation (bench/bounded-work's fairness table).
 */
const SLICE_WORK = 500;

/**
 * POST /v0/accounts/metrics/predicted-score: every account's scores from its (account, graph)
 * projection in D1 (kept current by the projections queue, src/queues/projections.ts). A bounded
 * number of D1 queries whatever the number of accounts: the graph (and its version, cached runtime
 * form and item parameters) and the accounts with their projections' revisions: one D1 batch (one
 * round trip); the projections of the accounts whose scores are not kept (./score-memo.ts): one more
 * read, none when every account's are.
 * The request's size is bounded by its schema (src/schemas/limits.ts) and its answer by
 * checkAnswerSize; the scores are computed one distribution at a time, yielding to the isolate's
 * other requests after every SLICE_WORK, so a large request delays them by about a millisecond per
 * turn they need, not by its whole time.
 */
export async function predictedScoreFor(db: Db, partnerId: string, body: PredictedScoreRequest, nowMs = Date.now()) {
  const graphRef = body.graph_ids[0] as string;
  const ids = [...new Set(body.account_ids.map((id) => id.toLowerCase()))];
  // One D1 round trip: the graph, and the accounts with their projection on that graph (a left join,
  // so an account without one is still found).
  const graphWhere = graphMatch(partnerId, graphRef);
  const [graphRows, found] = await db.batch([
    db.select().from(graphs).where(graphWhere),
    db
      // the revision only: the bodies of the accounts whose scores are not memoized are read after (projectionBodies)
      .select({ id: accounts.id, revision: accountProjections.revision })
      .from(accounts)
      .leftJoin(
        accountProjections,
        and(eq(accountProjections.accountId, accounts.id), sql`${accountProjections.graphId} = (SELECT ${graphs.id} FROM ${graphs} WHERE ${graphWhere})`),
      )
      .where(and(eq(accounts.partnerId, partnerId), isNull(accounts.erasedAt), inList(accounts.id, ids))),
  ]);
  const graph = graphRows[0];
  if (!graph) throw unprocessable(`No graph '${graphRef}' for this partner.`, [{ path: "body.graph_ids[0]", message: "unknown graph" }]);
  const index = await loadRuntimeGraph(db, graph.id, graph.version);
  if (!index) throw unprocessable(`Graph '${graphRef}' has no stored version.`, [{ path: "body.graph_ids[0]", message: "unknown graph" }]);

  const unknown: ErrorDetail[] = [];
  for (const [gi, g] of body.grouped_learning_objectives.entries()) {
    for (const [oi, o] of g.learning_objectives.entries()) {
      if (index.objectiveByLabel.has(o.learning_objective_id)) continue;
      unknown.push({
        path: `body.grouped_learning_objectives[${gi}].learning_objectives[${oi}].learning_objective_id`,
        message: `'${o.learning_objective_id}' is not an objective of the graph`,
      });
    }
  }
  if (unknown.length) throw unprocessable("Unknown learning objective id(s); see details.", unknown);

  const known = new Set(found.map((a) => a.id));
  const missing = body.account_ids.flatMap((id, i) => (known.has(id.toLowerCase()) ? [] : [{ path: `body.account_ids[${i}]`, message: `no account '${id}'` }]));
  // Another partner's account is as missing as one that does not exist.
  if (missing.length) throw new ApiError(404, "Account(s) not found; see details.", missing);

  checkAnswerSize(body, graph.label, ids.length);
  // Work units of one account: its score lists (as the decided product counts them).
  const projections = new Map(found.map((r) => [r.id, r] as const));
  const pool = itemPoolsFor(index, await loadItemParams(db, index.graph.id, nowMs));

  const groups = body.grouped_learning_objectives.map((g) => ({
    groupId: g.group_id,
    objectives: g.learning_objectives.map((o) => ({ objectiveId: o.learning_objective_id, weight: o.weight })),
  }));
  const options = {
    confidenceLevels: body.confidence_levels,
    coverageRequirement: body.learning_objective_coverage_requirement,
    objectiveScores: body.get_learning_objective_scores,
    overall: body.get_overall_score,
  };
  const ctx = { nowMs, graphId: graph.label, filter: SERVICE_PARAMS.filter, globalDifficulty: SERVICE_PARAMS.globalDifficulty, pool, lattices: new Map() };
  const account_scores: Record<string, AccountScores> = {};
  const slice = new WorkSlice(SLICE_WORK);
  const shape = `${graph.id}@${graph.version} ${JSON.stringify([groups, options])}`;
  const keyOf = (id: string, revision: number | null | undefined) => `${id} ${revision ?? 0} ${shape}`;
  const unkept = new Set(ids.filter((id) => projections.get(id)?.revision != null && !keptScores(pool, keyOf(id, projections.get(id)?.revision), nowMs)));
  const bodies = await projectionBodies(db, graph.id, [...unkept]);
  for (const id of ids) {
    // a body read after the revisions may be newer than the revision read first: key the scores by the body's
    const body = bodies.get(id);
    const key = keyOf(id, body ? body.revision : projections.get(id)?.revision);
    const kept = keptScores(pool, key, nowMs);
    if (kept) {
      account_scores[id] = kept;
      continue;
    }
    const projection = body ? (JSON.parse(body.raw) as AccountGraphProjection) : undefined;
    const steps = predictedScoreSteps(projection, groups, options, ctx);
    let step = steps.next();
    while (!step.done) {
      await slice.spent(step.value);
      step = steps.next();
    }
    account_scores[id] = step.value;
    // an account whose projection was there at the first read and gone at the second is not kept
    if (body || !unkept.has(id)) keepScores(pool, key, nowMs, step.value);
  }
  return { code: 200 as const, message: "OK", error_id: crypto.randomUUID(), account_scores };
}

/**
 * The stored projections (body as text, parsed only when the scores are computed) of `accountIds` on
 * the graph: one D1 read, none when every account's scores are memoized.
 */
async function projectionBodies(db: Db, graphUuid: string, accountIds: string[]): Promise<Map<string, { revision: number; raw: string }>> {
  if (accountIds.length === 0) return new Map();
  const rows = await db
    .select({ id: accountProjections.accountId, revision: accountProjections.revision, raw: sql<string>`${accountProjections.body}` })
    .from(accountProjections)
    .where(and(eq(accountProjections.graphId, graphUuid), inList(accountProjections.accountId, accountIds)))
    .all();
  return new Map(rows.map((r) => [r.id, { revision: r.revision, raw: r.raw }] as const));
}
