import { describe, expect, it } from "vitest";
import { PopulationShare } from "../../../src/objects/registration/population-share";
import { POPULATION_CADENCE } from "../../../src/reads/population-rates";
import { type PopulationRates, priorPopulation, priorRates } from "../../../src/tracing/rates";
import { REREAD_EVERY_MS, REREAD_LIMIT } from "../../../src/tracing/reread";
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

describe("the contribution's cadence (src/reads/population-rates.ts populationCadenceMs)", () => {
  const { youngMs, settledMs, youngAnswers } = POPULATION_CADENCE;

  it("is the young graph's while the rates read rest on fewer than youngAnswers answers, the settled graph's after", () => {
    const share = new PopulationShare(kvStore().kv);
    const learner = new Learner(index);
    learner.practise("a", true);
    share.markChanged(["lref-a"]);
    share.contribute(learner.tutor, { ...priorPopulation(), version: "g:1", answers: youngAnswers - 1 }, prerequisites, 100_000);
    expect(share.dueAt()).toBe(100_000 + youngMs);
    // an alarm that runs anyway within the last fifth of the cadence contributes then
    expect(share.dueBy(100_000 + 0.8 * youngMs - 1)).toBe(false);
    expect(share.dueBy(100_000 + 0.8 * youngMs)).toBe(true);

    learner.practise("b", true);
    share.markChanged(["lref-b"]);
    share.contribute(learner.tutor, { ...priorPopulation(), version: "g:2", answers: youngAnswers }, prerequisites, 200_000);
    expect(share.dueAt()).toBe(200_000 + settledMs);
    expect(share.dueBy(200_000 + 0.8 * settledMs - 1)).toBe(false);
  });

  it("is the settled graph's for a registration that contributed before the cadence was recorded", () => {
    const store = kvStore();
    const share = new PopulationShare(store.kv);
    const learner = new Learner(index);
    learner.practise("a", true);
    share.contribute(learner.tutor, population, prerequisites, 100_000);
    store.kv.delete("population_every_ms");
    expect(share.dueAt()).toBe(100_000 + settledMs);
  });
});

describe("re-reading unchanged evidence (src/tracing/reread.ts)", () => {
  const moved = (n: number): PopulationRates => ({ ...priorPopulation(), version: `g:${n}`, graph: { ...priorRates(), guess: 0.1 + 0.02 * n } });
  const contributed = () => {
    const store = kvStore();
    const learner = new Learner(index);
    const share = new PopulationShare(store.kv);
    learner.practise("a", true, 3);
    learner.practise("b", false, 2);
    share.contribute(learner.tutor, population, prerequisites, 0);
    return { store, learner, share };
  };

  it("is checked 1, 3, 7, 15 and 31 minutes after the last contribution, and not while new evidence waits", () => {
    const { learner, share } = contributed();
    expect(REREAD_LIMIT).toBe(5);
    expect(share.rereadDueAt()).toBe(REREAD_EVERY_MS);
    expect(share.rereadDue(REREAD_EVERY_MS - 1)).toBe(false);
    const checkedAt: number[] = [];
    for (let n = 1; n <= REREAD_LIMIT; n++) {
      const at = share.rereadDueAt() as number;
      expect(share.rereadDue(at - 1)).toBe(false);
      expect(share.rereadDue(at)).toBe(true);
      share.reread(() => learner.tutor, moved(n), prerequisites, at);
      checkedAt.push(at);
    }
    // each wait twice the one before: the rates move most in a class's first minutes
    expect(checkedAt.map((at) => at / REREAD_EVERY_MS)).toStrictEqual([1, 3, 7, 15, 31]);
    expect(share.rereadDueAt()).toBeUndefined();
    // new evidence: its own contribution first, then the checks start over
    const last = checkedAt.at(-1) as number;
    learner.practise("b", true);
    share.markChanged(["lref-b"]);
    expect(share.rereadDueAt()).toBeUndefined();
    share.contribute(learner.tutor, population, prerequisites, last);
    expect(share.rereadDueAt()).toBe(last + REREAD_EVERY_MS);
  });

  it("re-reads only when the rates' version moved, without asking for the evidence otherwise", () => {
    const { learner, share } = contributed();
    let asked = 0;
    const tutor = () => {
      asked++;
      return learner.tutor;
    };
    expect(share.reread(tutor, population, prerequisites, REREAD_EVERY_MS)).toBeUndefined();
    expect(asked).toBe(0);
    expect(share.reread(tutor, moved(1), prerequisites, 2 * REREAD_EVERY_MS)).toBeDefined();
    expect(asked).toBe(1);
    expect(share.reread(tutor, moved(1), prerequisites, 3 * REREAD_EVERY_MS)).toBeUndefined();
    expect(asked).toBe(1);
  });

  it("sends the difference to its latest kept reading: the first reading and its re-readings' deltas add up to one reading under the last rates", () => {
    const { learner, share } = contributed();
    const first = new PopulationShare(kvStore().kv).contribute(learner.tutor, population, prerequisites, 0);
    const r1 = share.reread(() => learner.tutor, moved(1), prerequisites, REREAD_EVERY_MS);
    const r2 = share.reread(() => learner.tutor, moved(3), prerequisites, 2 * REREAD_EVERY_MS);
    const once = new PopulationShare(kvStore().kv).contribute(learner.tutor, moved(3), prerequisites, 0);
    for (const key of ["known", "unknown", "partial"] as const) {
      const sum = [first, r1, r2].reduce((acc, d) => acc + (d?.items["mref-a1"]?.[key] ?? Number.NaN), 0);
      expect(sum).toBeCloseTo(once.items["mref-a1"]?.[key] ?? Number.NaN, 9);
    }
  });

  it("reads the stored contributions again after a re-reading whose transaction failed", () => {
    const { store, learner, share } = contributed();
    store.begin();
    const failed = share.reread(() => learner.tutor, moved(1), prerequisites, REREAD_EVERY_MS);
    store.rollback();
    share.discard();
    expect(share.reread(() => learner.tutor, moved(1), prerequisites, REREAD_EVERY_MS)).toStrictEqual(failed);
  });

  it("re-reads a registration that contributed before re-reading existed (no version, no count stored)", () => {
    const { store, learner, share } = contributed();
    store.kv.delete("population_read_version");
    store.kv.delete("population_rereads");
    expect(share.rereadDueAt()).toBe(REREAD_EVERY_MS);
    expect(share.reread(() => learner.tutor, population, prerequisites, REREAD_EVERY_MS)).toBeUndefined(); // the same rates: nothing moved
    expect(share.reread(() => learner.tutor, moved(1), prerequisites, 2 * REREAD_EVERY_MS)).toBeDefined();
  });
});
