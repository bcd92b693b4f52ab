import { eq, sql } from "drizzle-orm";
import { rowsPerInsert } from "../db/bound-list";
import type { Db } from "../db/client";
import { populationGraphs, populationItems, populationObjectives } from "../db/schema";
import { SharedValue } from "../lib/shared-value";
import { estimateRates } from "../tracing/estimate";
import { type PopulationRates, priorPopulation } from "../tracing/rates";
import { accumulate, emptyDelta, type StatisticsDelta } from "../tracing/statistics";

/**
 * A graph's knowledge-tracing rates, learned from its population (docs/recommendation.md
 * "Estimation"): the model-updates consumer adds every registration's statistics delta to the
 * graph's sums in D1 (`populationWrites`), and each isolate turns the sums into rates
 * (`loadPopulationRates`, src/tracing/estimate.ts), at most POPULATION_TTL_MS behind
 * (docs/api-conventions.md "Freshness": population parameters at most 60 s behind).
 */
export const POPULATION_TTL_MS = 30_000;
/** While one caller re-reads expired rates, the others keep the previous ones this long at most (40 s in all). */
const POPULATION_REFRESH_MS = 10_000;

/** Resolved values only (never a promise of a read another object or request started: src/lib/in-flight.ts). */
const cache = new SharedValue<{ version: number; rates: PopulationRates }>(POPULATION_TTL_MS, POPULATION_REFRESH_MS);

export function clearPopulationCache(): void {
  cache.clear();
}

/** The version of a graph's rates as a registration records it with its decisions. */
const versionName = (graphUuid: string, version: number) => (version === 0 ? "prior" : `${graphUuid}:${version}`);

/** The graph's current rates (the priors while nobody has answered), shared by the isolate (src/lib/shared-value.ts). */
export async function loadPopulationRates(db: Db, graphUuid: string, nowMs = Date.now()): Promise<PopulationRates> {
  const { rates } = await cache.get(graphUuid, nowMs, async (previous) => {
    const head = await db.select({ version: populationGraphs.version }).from(populationGraphs).where(eq(populationGraphs.graphId, graphUuid)).get();
    const version = head?.version ?? 0;
    if (previous && previous.version === version) return previous;
    if (version === 0) return { version, rates: priorPopulation() };
    return { version, rates: estimateRates(await readTotals(db, graphUuid), versionName(graphUuid, version)) };
  });
  return rates;
}

async function readTotals(db: Db, graphUuid: string): Promise<StatisticsDelta> {
  const [graph, items, objectives] = await db.batch([
    db.select().from(populationGraphs).where(eq(populationGraphs.graphId, graphUuid)),
    db.select().from(populationItems).where(eq(populationItems.graphId, graphUuid)),
    db.select().from(populationObjectives).where(eq(populationObjectives.graphId, graphUuid)),
  ]);
  const totals = emptyDelta();
  totals.speed = { learners: graph[0]?.learners ?? 0, logSquares: graph[0]?.logSquares ?? 0 };
  for (const r of items)
    totals.items[r.item] = {
      objective: r.objective,
      known: r.known,
      knownRight: r.knownRight,
      unknown: r.unknown,
      unknownRight: r.unknownRight,
      partial: r.partial,
    };
  for (const r of objectives) {
    const { episodes, knownAtStart, learnOpportunities, learnings, teachOpportunities, teachings, partialEntries, directEntries } = r;
    totals.objectives[r.objective] = { episodes, knownAtStart, learnOpportunities, learnings, teachOpportunities, teachings, partialEntries, directEntries };
  }
  return totals;
}

/** Rows per multi-row upsert: items bind 8 values a row (graph, item, objective, five counts), objectives 10. */
const ITEM_ROWS = rowsPerInsert(8);
const OBJECTIVE_ROWS = rowsPerInsert(10);

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
    for (let i = 0; i < items.length; i += ITEM_ROWS) {
      writes.push(
        db
          .insert(populationItems)
          .values(items.slice(i, i + ITEM_ROWS))
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
    for (let i = 0; i < objectives.length; i += OBJECTIVE_ROWS) {
      writes.push(
        db
          .insert(populationObjectives)
          .values(objectives.slice(i, i + OBJECTIVE_ROWS))
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
