import { describe, expect, it } from "vitest";
import { objectiveBelief } from "../../../src/analytics/beliefs";
import { addAnswered, answeredCount, COVERAGE_SKETCH, coverage } from "../../../src/analytics/coverage-sketch";
import { predictedScores } from "../../../src/analytics/predicted-score";
import {
  type AccountGraphProjection,
  applyProjectionMessage,
  MAX_REGISTRATIONS,
  mergeProjections,
  type ProjectionMessage,
  projectionOfMessage,
} from "../../../src/analytics/projection";
import { parseProjectionMessage } from "../../../src/analytics/projection-message";
import { projectionMessages, removalMessage } from "../../../src/analytics/projection-publish";
import { mulberry32 } from "../../../src/model/math";

const filter = { priorVarGlobal: 1, priorVarObjective: 0.3, forgetVarPerDay: 0.01 };

function shuffle<T>(xs: readonly T[], seed: number): T[] {
  const r = mulberry32(seed);
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

const fold = (ms: readonly ProjectionMessage[]): AccountGraphProjection | undefined =>
  ms.reduce<AccountGraphProjection | undefined>((p, m) => applyProjectionMessage(p, m), undefined);

/** A registration answering modules over time and publishing a message after each answer (some full, some deltas). */
function history(reg: string, createdAt: number, answers: number, seed: number): ProjectionMessage[] {
  const r = mulberry32(seed);
  const state = { global: { mu: 0, v: 1, n: 0, t: 0 }, objectives: {} as Record<string, { mu: number; v: number; n: number; t: number }> };
  const sketches: Record<string, number[]> = {};
  const out: ProjectionMessage[] = [];
  for (let i = 1; i <= answers; i++) {
    const k = `lref-${Math.floor(r() * 4)}`;
    state.objectives[k] ??= { mu: 0, v: 0.3, n: 0, t: 0 };
    const o = state.objectives[k];
    const y = r() < 0.7 ? 1 : -1;
    o.mu += 0.1 * y;
    o.v *= 0.9;
    o.n += 1;
    o.t = createdAt + i * 60_000;
    state.global = { mu: state.global.mu + 0.05 * y, v: state.global.v * 0.95, n: i, t: o.t };
    sketches[k] = addAnswered(sketches[k], `mref-${Math.floor(r() * 6)}`);
    const delta = i % 3 !== 0;
    out.push(
      ...projectionMessages(
        state,
        { accountId: "acc", graphId: "g", registrationId: reg, registrationCreatedAt: createdAt, seq: i },
        delta ? { [k]: sketches[k]! } : sketches,
        delta ? { objectives: [k] } : {},
      ),
    );
  }
  return out;
}

describe("coverage", () => {
  it("grows with distinct answered modules, not with a repeated module, and caps at 1", () => {
    let s: number[] | undefined;
    const seen: number[] = [];
    for (const m of ["mref-1", "mref-2", "mref-2", "mref-2", "mref-3", "mref-1", "mref-4", "mref-5"]) {
      s = addAnswered(s, m);
      seen.push(coverage(s, 4));
    }
    expect(seen).toEqual([0.25, 0.5, 0.5, 0.5, 0.75, 0.75, 1, 1]);
    expect(coverage(undefined, 4)).toBe(0);
    expect(coverage(s, 10)).toBeCloseTo(0.5);
  });

  it("is exact up to the sketch size and estimated beyond it", () => {
    let s: number[] = [];
    for (let i = 0; i < COVERAGE_SKETCH - 1; i++) s = addAnswered(s, `mref-${i}`);
    expect(answeredCount(s)).toBe(COVERAGE_SKETCH - 1);
    for (let i = 0; i < 400; i++) s = addAnswered(s, `mref-x${i}`);
    expect(s.length).toBe(COVERAGE_SKETCH);
    const est = answeredCount(s);
    expect(est).toBeGreaterThan(415 / 2);
    expect(est).toBeLessThan(415 * 2);
  });

  it("counts modules across the account's registrations once (union)", () => {
    const a = msg({ registrationId: "r1", answered: { "lref-a": addAnswered(addAnswered([], "mref-1"), "mref-2") } });
    const b = msg({ registrationId: "r2", seq: 9, answered: { "lref-a": addAnswered(addAnswered([], "mref-2"), "mref-3") } });
    const p = fold([a, b])!;
    expect(coverage(p.objectives["lref-a"]!.answered, 4)).toBe(0.75);
    const r = predictedScores(
      p,
      [{ groupId: "g", objectives: [{ objectiveId: "lref-a" }, { objectiveId: "lref-b" }] }],
      { confidenceLevels: [50], objectiveScores: true, overall: true },
      { nowMs: 0, graphId: "g", filter, globalDifficulty: 0 },
    );
    expect(r.group_scores[0]!.group_learning_objective_coverage).toBeCloseTo(0.375);
    expect(r.learning_objective_scores!.map((o) => o.learning_objective_coverage)).toEqual([0.75, 0]);
    expect(r.overall_learning_objective_coverage).toBeCloseTo(0.375);
  });
});

function msg(p: Partial<ProjectionMessage>): ProjectionMessage {
  return { version: 1, accountId: "acc", graphId: "g", registrationId: "r1", registrationCreatedAt: 1, seq: 1, lastActivity: 0, global: [0, 1, 0, 0], ...p };
}

describe("projection merge", () => {
  const messages = [...history("reg-a", 1_000, 25, 1), ...history("reg-b", 2_000, 18, 2), ...history("reg-c", 3_000, 7, 3)];
  const reference = JSON.stringify(fold(messages));

  it("is idempotent: every message applied twice gives the same projection", () => {
    const twice = messages.flatMap((m) => [m, m]);
    expect(JSON.stringify(fold(twice))).toBe(reference);
    const p = fold(messages)!;
    expect(JSON.stringify(mergeProjections(p, p))).toBe(reference);
  });

  it("is order-independent: shuffled, duplicated, out-of-order delivery gives the same projection", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const delivered = shuffle([...messages, ...shuffle(messages, seed + 100).slice(0, 15)], seed);
      expect(JSON.stringify(fold(delivered))).toBe(reference);
    }
  });

  it("is a join: merging partial projections in any grouping gives the same projection", () => {
    const s = shuffle(messages, 5);
    const left = fold(s.slice(0, 20))!;
    const right = fold(s.slice(20))!;
    expect(JSON.stringify(mergeProjections(left, right))).toBe(reference);
    expect(JSON.stringify(mergeProjections(right, left))).toBe(reference);
  });

  it("keeps each registration's latest values (last writer by seq)", () => {
    const p = fold(shuffle(messages, 9))!;
    const lastA = history("reg-a", 1_000, 25, 1).at(-1)!;
    expect(p.registrations["reg-a"]!.seq).toBe(25);
    expect(p.registrations["reg-a"]!.global!.slice(0, 4)).toEqual(lastA.global);
    expect(p.lastActivity).toBe(Math.max(...messages.map((m) => m.lastActivity)));
  });

  it("stays bounded: only the most recently created registrations are kept, whatever the order", () => {
    const many = Array.from({ length: MAX_REGISTRATIONS + 5 }, (_, i) => history(`reg-${String(i).padStart(2, "0")}`, 10_000 + i, 4, 50 + i)).flat();
    const ref = JSON.stringify(fold(many));
    for (let seed = 1; seed <= 10; seed++) expect(JSON.stringify(fold(shuffle(many, seed)))).toBe(ref);
    const p = JSON.parse(ref) as AccountGraphProjection;
    expect(Object.keys(p.registrations)).toHaveLength(MAX_REGISTRATIONS);
    expect(p.registrations["reg-00"]).toBeUndefined();
    for (const o of Object.values(p.objectives)) for (const id of Object.keys(o.beliefs)) expect(p.registrations[id]).toBeDefined();
  });

  it("a deleted registration's beliefs leave the projection, in any order; its answered modules stay counted", () => {
    const removal = removalMessage({ accountId: "acc", graphId: "g", registrationId: "reg-b", registrationCreatedAt: 2_000, seq: 100 });
    const ref = JSON.stringify(fold([...messages, removal]));
    for (let seed = 1; seed <= 5; seed++) expect(JSON.stringify(fold(shuffle([...messages, removal, removal], seed)))).toBe(ref);
    const p = JSON.parse(ref) as AccountGraphProjection;
    expect(p.registrations["reg-b"]!.removed).toBe(true);
    for (const o of Object.values(p.objectives)) expect(o.beliefs["reg-b"]).toBeUndefined();
  });

  it("a message split into parts merges like the whole message", () => {
    const state = {
      global: { mu: 0.3, v: 0.2, n: 30, t: 5 },
      objectives: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`lref-${i}`, { mu: i / 40, v: 0.1, n: i, t: 5 }])),
    };
    const answered = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`lref-${i}`, addAnswered([], `mref-${i}`)]));
    const meta = { accountId: "acc", graphId: "g", registrationId: "r", registrationCreatedAt: 1, seq: 7 };
    const parts = projectionMessages(state, meta, answered, { maxBytes: 600 });
    expect(parts.length).toBeGreaterThan(3);
    for (const part of parts) expect(JSON.stringify(part).length).toBeLessThan(700);
    const whole = projectionMessages(state, meta, answered);
    expect(whole).toHaveLength(1);
    expect(JSON.stringify(fold(shuffle(parts, 1)))).toBe(JSON.stringify(fold(whole)));
  });

  it("rejects malformed messages (they go to the dead-letter queue)", () => {
    expect(() => parseProjectionMessage({ hello: 1 })).toThrow();
    expect(() => parseProjectionMessage({ ...msg({}), seq: "x" })).toThrow();
    expect(() => parseProjectionMessage({ ...msg({}), objectives: { a: [0, -1, 0, 0] } })).toThrow();
    expect(() => parseProjectionMessage({ ...msg({}), answered: { a: [1.5] } })).toThrow();
    expect(() =>
      parseProjectionMessage(
        JSON.parse(
          `{"version":1,"accountId":"a","graphId":"g","registrationId":"r","registrationCreatedAt":1,"seq":1,"lastActivity":0,"objectives":{"__proto__":[0,0.1,1,0]}}`,
        ),
      ),
    ).toThrow();
    expect(parseProjectionMessage(JSON.parse(JSON.stringify(msg({ objectives: { a: [0, 0.1, 1, 0] } }))))).toBeTruthy();
  });
});

describe("account beliefs", () => {
  it("combine registrations as independent evidence: two agreeing registrations are surer than one", () => {
    const one = projectionOfMessage(msg({ registrationId: "r1", global: [1, 0.2, 10, 0], objectives: { k: [0.5, 0.1, 10, 0] } }));
    const two = mergeProjections(one, projectionOfMessage(msg({ registrationId: "r2", global: [1, 0.2, 10, 0], objectives: { k: [0.5, 0.1, 10, 0] } })));
    const b1 = objectiveBelief(one, "k", 0, filter);
    const b2 = objectiveBelief(two, "k", 0, filter);
    expect(b1.mean).toBeCloseTo(1.5, 6);
    expect(b1.variance).toBeCloseTo(0.3, 6);
    expect(b1.sharedVariance).toBeCloseTo(0.2, 6);
    expect(b2.variance).toBeLessThan(b1.variance);
    expect(b2.evidence).toBe(20);
    expect(b2.mean).toBeGreaterThan(b1.mean); // the shared prior (mean 0) is counted once, not twice
  });

  it("a registration that saw nothing changes nothing", () => {
    const one = projectionOfMessage(msg({ registrationId: "r1", global: [1, 0.2, 10, 0], objectives: { k: [0.5, 0.1, 10, 0] } }));
    const withEmpty = mergeProjections(one, projectionOfMessage(msg({ registrationId: "r2", global: [0, 1, 0, 0] })));
    expect(objectiveBelief(withEmpty, "k", 0, filter)).toEqual(objectiveBelief(one, "k", 0, filter));
  });

  it("forgets: an objective's offset variance grows with the days since its last event, up to the prior", () => {
    const day = 86_400_000;
    const p = projectionOfMessage(msg({ global: [1, 0.2, 10, day], objectives: { k: [0.5, 0.1, 10, day] } }));
    const v0 = objectiveBelief(p, "k", day, filter).variance;
    const v10 = objectiveBelief(p, "k", 11 * day, filter).variance;
    const v999 = objectiveBelief(p, "k", 1000 * day, filter).variance;
    expect(v10).toBeCloseTo(v0 + 0.1, 6);
    expect(v999).toBeCloseTo(0.2 + 0.3, 6);
  });
});
