/**
 * A graph's knowledge-tracing rates, learned from its population (docs/recommendation.md
 * "Estimation"): the model-updates consumer adds every registration's statistics delta to the
 * graph's sums in D1 (`populationWrites`, src/services/population-rates.ts), and each isolate turns
 * the sums into rates (`loadPopulationRates`, src/tracing/estimate.ts), re-read at the graph's
 * cadence (`populationCadenceMs`; docs/api-conventions.md "Freshness": population parameters at
 * most 60 s behind).
 */
import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { populationGraphs, populationItems, populationObjectives } from "../db/schema";
import { SharedValue } from "../lib/shared-value";
import { estimateRates } from "../tracing/estimate";
import { type PopulationRates, priorPopulation } from "../tracing/rates";
import { emptyDelta, type StatisticsDelta } from "../tracing/statistics";

/**
 * How often a graph's rates are brought up to date: each registration contributes its share at most
 * this often (src/objects/registration/population-share.ts), and each isolate re-reads its copy
 * after this long. A young graph, whose statistics hold fewer than `youngAnswers` answers, is
 * refreshed every `youngMs`: its rates move with every round of its first class, and the decisions
 * made on its first copies set the course (docs/recommendation-history.md, "The first rounds of a
 * class"); a young graph's statistics are small, so re-reading them costs little. Past that, a
 * contribution's share of the evidence is small and every `settledMs` loses nothing: contributions
 * are a large part of what an answer costs (docs/performance.md, "Contributions every 20 s").
 */
export const POPULATION_CADENCE = { youngMs: 5_000, settledMs: 20_000, youngAnswers: 2_000 } as const;

/** The cadence for a graph whose current rates are `rates` (ms). */
export function populationCadenceMs(rates: PopulationRates): number {
  return rates.answers < POPULATION_CADENCE.youngAnswers ? POPULATION_CADENCE.youngMs : POPULATION_CADENCE.settledMs;
}

/**
 * While one caller re-reads expired rates, the others keep the previous ones this long at most. The
 * rates in use are thus at most a cadence (the contribution) + the consumer's batch (1 s) + a cadence
 * (the isolate's copy) + this behind the class: 21 s on a young graph, 51 s on a settled one (docs/api-conventions.md
 * "Freshness": at most 60 s).
 */
const POPULATION_REFRESH_MS = 10_000;

/** Resolved values only (never a promise of a read another object or request started: src/lib/in-flight.ts). */
const cache = new SharedValue<{ version: number; rates: PopulationRates }>(({ rates }) => populationCadenceMs(rates), POPULATION_REFRESH_MS);

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
