/**
 * The world family: every world's parameters drawn at random from wide ranges, so that no decision
 * of the engine is tuned to one world (docs/recommendation.md, "World family"). A family world is a
 * seed: `familyParams(seed)` draws its parameters, `generateWorld` builds it.
 *
 * | parameter                  | drawn per world                                                              |
 * | -------------------------- | ---------------------------------------------------------------------------- |
 * | objectives                 | 10–60                                                                        |
 * | depth and fan-in           | prerequisites 1–4 among the 2–10 objectives before; 5–30% roots               |
 * | targets, remediation       | 1–4 of the deepest quarter; one, two, three or maximum                        |
 * | items per objective        | 2–4 up to 4–8                                                                |
 * | guess                      | a world centre in 0.05–0.35, items ±0.05 around it (within 0.05–0.35)        |
 * | slip                       | a world centre in 0.02–0.20, items ±0.03 around it (within 0.02–0.20)        |
 * | learning rate              | a world centre in 0.05–0.5 (log-uniform), objectives ×/÷ 1.5 around it       |
 * | learner speed              | per student ×0.5–×2 (log-normal, world spread 0.1–0.5, clipped)              |
 * | prior knowledge            | per world a centre from none (0) to most (0.9) of the scope's depth, ±0.2     |
 * | blocked learners           | 0–20% of the students, one needed objective each                             |
 * | instruction                | 0–3 instructional atoms on 0–100% of the objectives; teaching ×1–×2.5         |
 * | learner model              | discrete (knowledge tracing) or continuous skill (learners.ts), half each     |
 */
import { makeRng, type Range, type WorldParams } from "./world";

const clip = ([a, b]: Range, [lo, hi]: Range): Range => [Math.max(lo, a), Math.min(hi, b)];

export function familyParams(seed: number, students = 200): WorldParams {
  const r = makeRng(seed * 2_654_435_761 + 97);
  const objectives = r.int(10, 60);
  const g = r.uniform([0.05, 0.35]);
  const s = r.uniform([0.02, 0.2]);
  const t = r.logUniform([0.05, 0.5]);
  const k = r.uniform([0, 0.9]);
  const instructed = r.next() < 0.2 ? 0 : r.uniform([0.2, 1]);
  const itemsLo = r.int(2, 4);
  return {
    objectives,
    maxPrereqs: r.int(1, 4),
    window: r.int(2, 10),
    rootShare: r.uniform([0.05, 0.3]),
    itemsPerObjective: [itemsLo, itemsLo + r.int(0, 4)],
    instructionShare: instructed,
    maxInstruction: r.int(1, 3),
    guess: clip([g - 0.05, g + 0.05], [0.05, 0.35]),
    slip: clip([s - 0.03, s + 0.03], [0.02, 0.2]),
    learn: [Math.max(0.03, t / 1.5), Math.min(0.75, t * 1.5)],
    learnScale: "log",
    learnerSpread: r.uniform([0.1, 0.5]),
    speedRange: [0.5, 2],
    instructionBoost: r.uniform([1, 2.5]),
    known: clip([k - 0.2, k + 0.2], [0, 1]),
    blockedShare: r.uniform([0, 0.2]),
    students,
    targets: r.int(1, 4),
    remediationDepth: r.pick(["one", "two", "three", "maximum"] as const),
    kind: r.next() < 0.5 ? "discrete" : "continuous",
  };
}

/** A short description of a family world for tables. */
export function describe(p: WorldParams): string {
  const f = (x: number) => x.toFixed(2);
  return `${p.kind === "discrete" ? "D" : "C"} n${p.objectives} g${f((p.guess[0] + p.guess[1]) / 2)} s${f((p.slip[0] + p.slip[1]) / 2)} t${f(Math.sqrt(p.learn[0] * p.learn[1]))} k${f((p.known[0] + p.known[1]) / 2)} b${f(p.blockedShare)}`;
}
