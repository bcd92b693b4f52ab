import { describe, expect, it } from "vitest";
import { PopulationShare } from "../../../src/objects/registration/population-share";
import { priorPopulation } from "../../../src/tracing/rates";
import { graph, Learner } from "../policy/fixture";

/** The object's key-value storage, as far as PopulationShare uses it (a Map, values structured-cloned), with its reads counted and a rollback. */
function kvStore() {
  let map = new Map<string, unknown>();
  let saved = map;
  const reads: string[] = [];
  const kv = {
    get: (key: string) => {
      reads.push(key);
      return structuredClone(map.get(key));
    },
    put: (key: string, value: unknown) => void map.set(key, structuredClone(value)),
    delete: (key: string) => map.delete(key),
  } as unknown as SyncKvStorage;
  return {
    kv,
    reads,
    begin: () => {
      saved = new Map(map);
    },
    rollback: () => {
      map = saved;
    },
  };
}

const index = graph();
const prerequisites = (label: string) => {
  const o = index.objectiveByLabel.get(label);
  return o === undefined ? [] : (index.graph.prerequisites[o] ?? []).map((p) => index.graph.objectives[p] as string);
};
const population = priorPopulation();

describe("a registration's population share", () => {
  it("keeps what it contributed in memory once committed: the same deltas as a share that reads them from storage every time", () => {
    const memory = kvStore();
    const stored = kvStore();
    const learner = new Learner(index);
    const kept = new PopulationShare(memory.kv);
    for (let round = 0; round < 6; round++) {
      learner.practise(round % 2 ? "a" : "b", round % 3 === 0);
      const delta = kept.contribute(learner.tutor, population, prerequisites, round * 20_000);
      // a new instance each time: it reads the stored contributions
      expect(new PopulationShare(stored.kv).contribute(learner.tutor, population, prerequisites, round * 20_000)).toStrictEqual(delta);
    }
    expect(memory.reads.filter((k) => k === "population_contributions")).toHaveLength(1);
  });

  it("reads them from storage again after a contribution whose transaction failed", () => {
    const store = kvStore();
    const learner = new Learner(index);
    const share = new PopulationShare(store.kv);
    learner.practise("a", true);
    share.contribute(learner.tutor, population, prerequisites, 0);
    learner.practise("b", false);
    store.begin();
    const failed = share.contribute(learner.tutor, population, prerequisites, 20_000);
    store.rollback(); // the transaction failed: the outbox message with this delta was rolled back too
    share.discard();
    const again = share.contribute(learner.tutor, population, prerequisites, 40_000);
    expect(again).toStrictEqual(failed);
    expect(store.reads.filter((k) => k === "population_contributions")).toHaveLength(2);
  });
});
