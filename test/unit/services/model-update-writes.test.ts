import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { insertChunks } from "../../../src/db/bound-list";
import { appliedModelUpdates, itemParams, populationGraphs, populationItems, populationObjectives } from "../../../src/db/schema";
import type { ItemEntry } from "../../../src/model";
import { appliedMarkWrites, refinedItemWrites } from "../../../src/services/model-update-writes";
import { populationWrites } from "../../../src/services/population-rates";
import { emptyDelta, emptyObjectiveCounts, type StatisticsDelta } from "../../../src/tracing/statistics";

// The statements as drizzle built them before they were raw (`toSQL()` needs no database).
const db = drizzle({} as D1Database);

function drizzleItemWrites(graphUuid: string, refined: [string, ItemEntry][], nowMs: number) {
  const rows = refined.map(([module, e]) => ({
    graphId: graphUuid,
    module,
    easiness: e[0],
    difficulty: e[1],
    observations: e[2],
    shift: e[3],
    updatedAt: nowMs,
  }));
  return insertChunks(rows, 7).map((part) =>
    db
      .insert(itemParams)
      .values(part)
      .onConflictDoUpdate({
        target: [itemParams.graphId, itemParams.module],
        set: {
          easiness: sql`excluded.easiness`,
          difficulty: sql`excluded.difficulty`,
          observations: sql`excluded.observations`,
          shift: sql`excluded.shift`,
          updatedAt: sql`excluded.updated_at`,
        },
      })
      .toSQL(),
  );
}

function drizzlePopulationWrites(graphId: string, totals: StatisticsDelta, nowMs: number) {
  const items = Object.entries(totals.items).map(([item, c]) => ({ graphId, item, ...c, partial: c.partial ?? 0 }));
  const objectives = Object.entries(totals.objectives).map(([objective, c]) => ({
    graphId,
    objective,
    ...c,
    partialEntries: c.partialEntries ?? 0,
    directEntries: c.directEntries ?? 0,
  }));
  return [
    ...insertChunks(items, 8).map((part) =>
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
        })
        .toSQL(),
    ),
    ...insertChunks(objectives, 10).map((part) =>
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
        })
        .toSQL(),
    ),
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
      })
      .toSQL(),
  ];
}

const graph = "7a1f3c2e-0000-4000-8000-000000000000";
const now = 1_790_000_000_123;

function deltaOf(objectives: number, itemsEach: number): StatisticsDelta {
  const delta = emptyDelta();
  delta.speed = { learners: 0.75, logSquares: 1 / 3 };
  for (let o = 0; o < objectives; o++) {
    const objective = `lref-${o}`;
    delta.objectives[objective] = { ...emptyObjectiveCounts(), episodes: 1 / (o + 2), learnings: 0.1 * o, directEntries: o };
    for (let i = 0; i < itemsEach; i++)
      delta.items[`mref-${o}-${i}`] = { objective, known: 1 / (i + 3), knownRight: 0.5, unknown: i, unknownRight: 0, partial: 0.25 };
  }
  return delta;
}

describe("the model-updates consumer's raw statements are the ones drizzle built", () => {
  it("refined item parameters, in chunks of 14 rows", () => {
    for (const n of [1, 13, 14, 15, 50]) {
      const refined = Array.from({ length: n }, (_, i): [string, ItemEntry] => [`mref-${i}`, [0.1 * i, -1 / (i + 1), i, 0.5]]);
      expect(refinedItemWrites(graph, refined, now)).toEqual(drizzleItemWrites(graph, refined, now));
    }
  });

  it("applied marks, in chunks of 50 messages", () => {
    for (const n of [1, 50, 51, 120]) {
      const ids = Array.from({ length: n }, (_, i) => `reg-${i}:${i + 1}`);
      const reference = insertChunks(ids, 2).map((part) =>
        db
          .insert(appliedModelUpdates)
          .values(part.map((messageId) => ({ messageId, appliedAt: now })))
          .toSQL(),
      );
      expect(appliedMarkWrites(ids, now)).toEqual(reference);
    }
  });

  it("population sums: items, objectives and the graph's version, per graph", () => {
    for (const [objectives, itemsEach] of [
      [0, 0],
      [1, 1],
      [10, 2],
      [23, 3],
    ] as const) {
      const delta = deltaOf(objectives, itemsEach);
      expect(populationWrites([{ graphUuid: graph, delta }], now)).toEqual(drizzlePopulationWrites(graph, delta, now));
    }
  });
});
