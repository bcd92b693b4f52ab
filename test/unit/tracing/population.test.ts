import { describe, expect, it } from "vitest";
import { runClassA, runClassB } from "../../../scripts/simulate/class-run";
import { compileWorld, inProcessClass } from "../../../scripts/simulate/in-process";
import { Learner } from "../../../scripts/simulate/learners";
import { generateWorld, type World, type WorldParams } from "../../../scripts/simulate/world";
import { goalStatus, initialTutorState, recommend, type TutorState } from "../../../src/policy";
import { updateTutorState } from "../../../src/policy/tutor-state";
import { objectiveRates, type PopulationRates } from "../../../src/tracing/rates";

/**
 * The engine learns its world from its population (docs/recommendation.md "Estimation"): simulated
 * classes whose true parameters are known, run through the engine exactly as the service runs it
 * (in process: tutor state per event, contributions, estimates refreshed as the class goes on).
 */
const WORLD: WorldParams = {
  objectives: 8,
  maxPrereqs: 1,
  window: 2,
  rootShare: 0.15,
  itemsPerObjective: [4, 4],
  instructionShare: 0,
  maxInstruction: 1,
  guess: [0.3, 0.3],
  slip: [0.05, 0.05],
  learn: [0.2, 0.2],
  learnerSpread: 0.3,
  speedRange: [0.5, 2],
  instructionBoost: 1,
  known: [0.1, 0.3],
  blockedShare: 0,
  students: 60,
  targets: 1,
  remediationDepth: "maximum",
  kind: "discrete",
};

/** Mean absolute error of the items' guess and slip in the world's scope. */
function itemError(world: World, rates: PopulationRates): { guess: number; slip: number } {
  let guess = 0;
  let slip = 0;
  let n = 0;
  for (const o of world.scope)
    for (const i of world.objectives[o]?.items ?? []) {
      const item = world.items[i];
      if (!item) continue;
      const r = rates.items[item.id] ?? objectiveRates(rates, world.objectives[o]?.id ?? "");
      guess += Math.abs(r.guess - item.guess);
      slip += Math.abs(r.slip - item.slip);
      n++;
    }
  return { guess: guess / n, slip: slip / n };
}

describe("population estimates", () => {
  it("move toward the true guess and learning rate as a simulated class answers", async () => {
    const world = generateWorld(WORLD, 11);
    const session = await inProcessClass()(world, "B");
    const snapshots: PopulationRates[] = [];
    const tick = session.tick.bind(session);
    session.tick = async (round) => {
      await tick(round);
      if (round === 2) snapshots.push(session.rates());
    };
    await runClassB(world, session);
    const early = itemError(world, snapshots[0] as PopulationRates);
    const late = itemError(world, session.rates());
    expect(late.guess).toBeLessThan(early.guess);
    // the graph's guess and learning rate: from the priors (0.2, 0.2) to the world's (0.3, 0.2)
    const graph = session.rates().graph;
    expect(Math.abs(graph.guess - 0.3)).toBeLessThan(0.04);
    expect(Math.abs(graph.learn - 0.2)).toBeLessThan(0.05);
    expect(Math.abs((snapshots[0] as PopulationRates).graph.guess - 0.3)).toBeGreaterThan(Math.abs(graph.guess - 0.3));
    expect(session.rates().version).not.toBe("prior");
  });

  it("read a fast-learning class whose learners' speeds differ at its own learning rate, the learners' speeds centred on the typical learner", async () => {
    // learning 0.45 per opportunity for the typical learner, speeds ×0.5 … ×2, 30 objectives (enough
    // evidence per learner to read its speed): the linear weight of a speed (statistics.ts, before the
    // effective rate's weight) read this class's rate as 0.26 and the spread of speeds as 0.64
    const world = generateWorld(
      { ...WORLD, objectives: 30, maxPrereqs: 3, window: 6, guess: [0.2, 0.2], learn: [0.45, 0.45], learnerSpread: 0.5, students: 60 },
      21,
    );
    const session = await inProcessClass()(world, "B");
    await runClassB(world, session);
    const rates = session.rates();
    expect(Math.abs(rates.graph.learn - 0.45)).toBeLessThan(0.08);
    expect(Math.abs(rates.graph.guess - 0.2)).toBeLessThan(0.04);
    expect(Math.abs(rates.speedSpread - 0.5)).toBeLessThan(0.1);
  });

  it("brings a partner-sequenced class to complete: most learners who truly mastered the goal are reported complete, none falsely", async () => {
    // (guess 0.05: three right answers in a row are then strong enough evidence for the ready level,
    // whether learning is read as a switch or along a curve; with guessing more likely a partner's
    // three in a row often are not, and the status says how much more work it needs instead)
    const world = generateWorld({ ...WORLD, guess: [0.05, 0.05], students: 40 }, 12);
    const runs = await runClassB(world, await inProcessClass()(world, "B"));
    const mastered = runs.filter((r) => r.end === "mastered" && r.steps > 0);
    expect(mastered.length).toBeGreaterThan(20);
    const complete = mastered.filter((r) => r.completeAtEnd).length;
    expect(complete / mastered.length).toBeGreaterThanOrEqual(0.7);
    expect(runs.filter((r) => r.falseComplete).length).toBeLessThanOrEqual(2);
  });

  it("reads a partner-sequenced class on a knowledge-tracing world with guessing at 0.3 as it is, when the partner stops on what it observed", async () => {
    // The oracle's stop ("mastered": after a pass that leaves the targets truly mastered, the family's
    // default until 69c52b3) keeps exactly the unmastered learners practising, which no answer shows: on this class the target's slip is
    // then estimated at 0.15 (truth 0.05) and 2 of 39 masters are reported complete (docs/recommendation-history.md,
    // "Why the partner-sequenced false completes are high on discrete worlds"). Stopped on the answers
    // alone, the same engine reads the world's rates and its completes hold.
    const world = generateWorld({ ...WORLD, students: 40 }, 16);
    const session = await inProcessClass()(world, "B");
    const runs = await runClassB(world, session, "observed");
    const target = objectiveRates(session.rates(), world.objectives[world.targets[0] as number]?.id ?? "");
    expect(Math.abs(target.slip - 0.05)).toBeLessThan(0.03);
    expect(Math.abs(target.guess - 0.3)).toBeLessThan(0.05);
    const mastered = runs.filter((r) => r.end === "mastered" && r.steps > 0);
    expect(mastered.length).toBeGreaterThan(30);
    expect(mastered.filter((r) => r.completeAtEnd).length / mastered.length).toBeGreaterThanOrEqual(0.8);
    const everComplete = runs.filter((r) => r.everComplete);
    expect(runs.filter((r) => r.falseComplete).length).toBeLessThanOrEqual(Math.ceil(0.05 * everComplete.length));
  });

  it("does not flag a learner who is only slow as stuck", async () => {
    // Every learner can learn everything (no one blocked); speeds from ×0.5 to ×2, learning slow.
    const world = generateWorld({ ...WORLD, learn: [0.08, 0.08], students: 40 }, 13);
    const runs = await runClassA(world, await inProcessClass()(world, "A"));
    const slowest = [...world.students].sort((a, b) => a.learnMultiplier - b.learnMultiplier).slice(0, 10);
    for (const s of slowest) expect(runs[s.index]?.everStuck).toBe(false);
    expect(runs.filter((r) => r.everStuck).length).toBe(0);
    expect(runs.filter((r) => r.end === "ready").length).toBeGreaterThanOrEqual(36);
  });
});

describe("replay", () => {
  it("is deterministic given the rates version: the same log and the same rates give the same decisions", async () => {
    const world = generateWorld({ ...WORLD, students: 12 }, 14);
    const session = await inProcessClass()(world, "A");
    await runClassA(world, session);
    const rates = session.rates();
    const { prepared, index } = compileWorld(world);
    // one learner's log, replayed twice from nothing
    const log: [string, boolean | undefined][] = [];
    const learner = new Learner(world, world.students[0] as (typeof world.students)[number]);
    let tutor = initialTutorState();
    for (let i = 0; i < 40; i++) {
      const rec = recommend(prepared, tutor, rates);
      const m = rec.module_ids[0];
      if (!m) break;
      const correct = learner.work(world.itemById.get(m) as number);
      log.push([m, correct]);
      tutor = applyLogged(index, tutor, m, correct);
    }
    const replay = () => log.reduce((t, [m, c]) => applyLogged(index, t, m, c), initialTutorState());
    const [a, b] = [replay(), replay()];
    expect(b).toEqual(a);
    expect(a).toEqual(tutor);
    expect(recommend(prepared, b, rates)).toEqual(recommend(prepared, a, rates));
    expect(goalStatus(prepared, b, rates)).toEqual(goalStatus(prepared, a, rates));
  });
});

function applyLogged(index: ReturnType<typeof compileWorld>["index"], tutor: TutorState, module: string, correct: boolean | undefined): TutorState {
  const m = index.graph.modules[index.moduleByLabel.get(module) as number];
  const objectives = (m?.objectives ?? []).map((o) => index.graph.objectives[o] as string);
  return updateTutorState(
    tutor,
    correct === undefined ? { kind: "ungraded", itemKey: module, objectives } : { kind: "graded", itemKey: module, objectives, correct },
  );
}
