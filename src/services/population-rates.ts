/**
 * The write side of a graph's population sums (docs/recommendation.md "Estimation"): the statements
 * the model-updates consumer adds every registration's statistics delta with. Reading the sums back
 * as rates, per isolate, is src/reads/population-rates.ts.
 */
import { sql } from "drizzle-orm";
import { insertChunks } from "../db/bound-list";
import type { Db } from "../db/client";
import { populationGraphs, populationItems, populationObjectives } from "../db/schema";
import { accumulate, emptyDelta, type StatisticsDelta } from "../tracing/statistics";

/** Bound values per row of the multi-row upserts: items 8 (graph, item, objective, five counts), objectives 10. */
const ITEM_COLUMNS = 8;
const OBJECTIVE_COLUMNS = 10;

/**
 * The D1 statements that add the deltas to each graph's sums (additive upserts: no read, so no
 * update is lost whatever else writes), and move each touched graph's version on. The caller runs
 * them in one batch with the messages' applied marks (exactly once).
 */
export function populationWrites(db: Db, deltas: { graphUuid: string; delta: StatisticsDelta }[], nowMs: number) {
  const byGraph = new Map<string, StatisticsDelta>();
  for (const { graphUuid, delta } of deltas) {
    const totals = byGraph.get(graphUuid) ?? emptyDelta();
    accumulate(totals, delta);
    byGraph.set(graphUuid, totals);
  }
  const writes = [];
  for (const [graphId, totals] of byGraph) {
    const items = Object.entries(totals.items).map(([item, c]) => ({ graphId, item, ...c, partial: c.partial ?? 0 }));
    for (const part of insertChunks(items, ITEM_COLUMNS)) {
      writes.push(
        db
          .insert(populationItems)
          .values(part)
          .onConflictDoUpdate({
            target: [populationItems.graphId, populationItems.item],
            set: {
              known: sql`${populationItems.known} + excluded.known`,
              knownRight: sql`${populationItems.knownRight} + excluded.known_right`,
              unknown: sql`${populationItems.unknown} + excluded.unknown`,
              unknownRight: sql`${populationItems.unknownRight} + excluded.unknown_right`,
              partial: sql`${populationItems.partial} + excluded.partial`,
            },
          }),
      );
    }
    // (a message queued before a count existed lacks it: 0)
    const objectives = Object.entries(totals.objectives).map(([objective, c]) => ({
      graphId,
      objective,
      ...c,
      partialEntries: c.partialEntries ?? 0,
      directEntries: c.directEntries ?? 0,
    }));
    for (const part of insertChunks(objectives, OBJECTIVE_COLUMNS)) {
      writes.push(
        db
          .insert(populationObjectives)
          .values(part)
          .onConflictDoUpdate({
            target: [populationObjectives.graphId, populationObjectives.objective],
            set: {
              episodes: sql`${populationObjectives.episodes} + excluded.episodes`,
              knownAtStart: sql`${populationObjectives.knownAtStart} + excluded.known_at_start`,
              learnOpportunities: sql`${populationObjectives.learnOpportunities} + excluded.learn_opportunities`,
              learnings: sql`${populationObjectives.learnings} + excluded.learnings`,
              teachOpportunities: sql`${populationObjectives.teachOpportunities} + excluded.teach_opportunities`,
              teachings: sql`${populationObjectives.teachings} + excluded.teachings`,
              partialEntries: sql`${populationObjectives.partialEntries} + excluded.partial_entries`,
              directEntries: sql`${populationObjectives.directEntries} + excluded.direct_entries`,
            },
          }),
      );
    }
    writes.push(
      db
        .insert(populationGraphs)
        .values({ graphId, version: 1, learners: totals.speed.learners, logSquares: totals.speed.logSquares, updatedAt: nowMs })
        .onConflictDoUpdate({
          target: populationGraphs.graphId,
          set: {
            version: sql`${populationGraphs.version} + 1`,
            learners: sql`${populationGraphs.learners} + excluded.learners`,
            logSquares: sql`${populationGraphs.logSquares} + excluded.log_squares`,
            updatedAt: nowMs,
          },
        }),
    );
  }
  return writes;
}
