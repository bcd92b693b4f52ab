/**
 * The write side of a graph's population sums (docs/recommendation.md "Estimation"): the statements
 * the model-updates consumer adds every registration's statistics delta with. Reading the sums back
 * as rates, per isolate, is src/reads/population-rates.ts.
 */
import { insertChunks } from "../db/bound-list";
import { multiRowInsert, type RawStatement } from "../db/raw-statements";
import { accumulate, emptyDelta, type StatisticsDelta } from "../tracing/statistics";

const ITEM_COLUMNS = ["graph_id", "item", "objective", "known", "known_right", "unknown", "unknown_right", "partial"] as const;
const OBJECTIVE_COLUMNS = [
  "graph_id",
  "objective",
  "episodes",
  "known_at_start",
  "learn_opportunities",
  "learnings",
  "teach_opportunities",
  "teachings",
  "partial_entries",
  "direct_entries",
] as const;

/** `column = table.column + excluded.column` for each summed column: the upsert adds the delta to the stored sums. */
const adding = (table: string, columns: readonly string[]) => columns.map((c) => `"${c}" = "${table}"."${c}" + excluded.${c}`).join(", ");

const itemUpsert = multiRowInsert(
  "population_items",
  ITEM_COLUMNS,
  ` on conflict ("population_items"."graph_id", "population_items"."item") do update set ${adding("population_items", ITEM_COLUMNS.slice(3))}`,
);
const objectiveUpsert = multiRowInsert(
  "population_objectives",
  OBJECTIVE_COLUMNS,
  ` on conflict ("population_objectives"."graph_id", "population_objectives"."objective") do update set ${adding("population_objectives", OBJECTIVE_COLUMNS.slice(2))}`,
);
const graphUpsert = multiRowInsert(
  "population_graphs",
  ["graph_id", "version", "learners", "log_squares", "updated_at"],
  ` on conflict ("population_graphs"."graph_id") do update set "version" = "population_graphs"."version" + 1, ${adding("population_graphs", ["learners", "log_squares"])}, "updated_at" = ?`,
)(1);

/**
 * The D1 statements that add the deltas to each graph's sums (additive upserts: no read, so no
 * update is lost whatever else writes), and move each touched graph's version on. The caller runs
 * them in one batch with the messages' applied marks (exactly once).
 */
export function populationWrites(deltas: { graphUuid: string; delta: StatisticsDelta }[], nowMs: number): RawStatement[] {
  const byGraph = new Map<string, StatisticsDelta>();
  for (const { graphUuid, delta } of deltas) {
    const totals = byGraph.get(graphUuid) ?? emptyDelta();
    accumulate(totals, delta);
    byGraph.set(graphUuid, totals);
  }
  const writes: RawStatement[] = [];
  for (const [graphId, totals] of byGraph) {
    const items = Object.entries(totals.items);
    for (const part of insertChunks(items, ITEM_COLUMNS.length)) {
      writes.push({
        sql: itemUpsert(part.length),
        params: part.flatMap(([item, c]) => [graphId, item, c.objective, c.known, c.knownRight, c.unknown, c.unknownRight, c.partial ?? 0]),
      });
    }
    // (a message queued before a count existed lacks it: 0)
    const objectives = Object.entries(totals.objectives);
    for (const part of insertChunks(objectives, OBJECTIVE_COLUMNS.length)) {
      writes.push({
        sql: objectiveUpsert(part.length),
        params: part.flatMap(([objective, c]) => [
          graphId,
          objective,
          c.episodes,
          c.knownAtStart,
          c.learnOpportunities,
          c.learnings,
          c.teachOpportunities,
          c.teachings,
          c.partialEntries ?? 0,
          c.directEntries ?? 0,
        ]),
      });
    }
    writes.push({ sql: graphUpsert, params: [graphId, 1, totals.speed.learners, totals.speed.logSquares, nowMs, nowMs] });
  }
  return writes;
}
