/**
 * Seeded ground-truth world for the learner simulator (pure: no I/O).
 *
 * - Objectives form a DAG (each non-root objective has 1..maxPrereqs prerequisites among the few
 *   objectives before it, so chains get deep).
 * - Items: every objective has a few assessment atoms, each with its own guess, slip and difficulty;
 *   some objectives also have instructional atoms.
 * - Students: an initial mastered set consistent with the DAG (knowledge grows from the bottom of
 *   the graph: a student knows the objectives up to a personal depth level, with noise), a personal
 *   learning-speed multiplier, and for `blockedShare` of them one objective on the way to the goal's
 *   targets that they cannot learn at all.
 * - How students learn and answer is the world's learner model (learners.ts): discrete mastery
 *   (knowledge tracing's: known or not, learned at an opportunity) or a continuous skill that grows
 *   gradually with practice.
 */
import type { GraphDocument } from "../../src/graphs/graph-document";
import { mulberry32 } from "../../src/model/math";

export type Range = [number, number];
export type LearnerKind = "discrete" | "continuous";

export interface WorldParams {
  objectives: number;
  /** prerequisites per non-root objective: 1..maxPrereqs */
  maxPrereqs: number;
  /** prerequisites are drawn among the `window` objectives just before (controls depth) */
  window: number;
  /** share of objectives without prerequisites (the first ones) */
  rootShare: number;
  itemsPerObjective: Range;
  /** share of objectives with instructional atoms, and how many such an objective has (1..maxInstruction) */
  instructionShare: number;
  maxInstruction: number;
  guess: Range;
  slip: Range;
  /** per-objective base learning probability per opportunity, drawn uniformly or log-uniformly */
  learn: Range;
  learnScale?: "linear" | "log";
  /** sd of the log of a student's learning-speed multiplier, and the range the multiplier is clipped to */
  learnerSpread: number;
  speedRange: Range;
  /** instruction learning probability = practice probability × this */
  instructionBoost: number;
  /**
   * per student: the share of the scope's prerequisite depth already known (drawn in this range): an
   * objective at depth d (longest prerequisite chain below it, with N(0, 0.75) noise per student and
   * objective) is known when d < d₀ + share × (deepest target's depth + 1 − d₀) and its prerequisites
   * are known; d₀ = the shallowest depth in the goal's scope (0 when the scope reaches the roots).
   * Objectives the targets need below the scope are known to every student (remediation cannot reach them).
   */
  known: Range;
  /** "scope" (default): the share is of the scope's depth range (above); "graph": of the whole graph's depth */
  knownOver?: "scope" | "graph";
  /** share of students with one objective they cannot learn (chosen on the way to the targets) */
  blockedShare: number;
  students: number;
  /** number of goal targets (chosen among the deepest objectives) */
  targets: number;
  remediationDepth: "none" | "one" | "two" | "three" | "maximum";
  /** the learner model that generates answers and learning (learners.ts) */
  kind: LearnerKind;
}

/** The project's first two worlds (the engine was once tuned on them): the family (family.ts) draws others. */
export const SMALL: WorldParams = {
  objectives: 15,
  maxPrereqs: 2,
  window: 4,
  rootShare: 0.15,
  itemsPerObjective: [3, 6],
  instructionShare: 0.4,
  maxInstruction: 1,
  guess: [0.1, 0.3],
  slip: [0.05, 0.12],
  learn: [0.15, 0.35],
  learnerSpread: 0.35,
  speedRange: [0.25, 4],
  instructionBoost: 1.5,
  known: [0.3, 0.8],
  blockedShare: 0.1,
  students: 200,
  targets: 2,
  remediationDepth: "maximum",
  kind: "discrete",
};

export interface WorldObjective {
  id: string;
  prereqs: number[];
  items: number[];
  /** instructional atoms (possibly none) */
  instruction: number[];
  /** base learning probability per opportunity */
  learn: number;
}

export interface WorldItem {
  id: string;
  objective: number;
  kind: "assessment" | "instructional";
  guess: number;
  slip: number;
  /** the continuous learner model's item difficulty (logits) */
  difficulty: number;
}

export interface Student {
  index: number;
  /** initially mastered objectives */
  known: boolean[];
  learnMultiplier: number;
  /** objective the student cannot learn, -1 for none */
  blocked: number;
  /** seed of the student's response/learning randomness (the same for every strategy) */
  seed: number;
}

export interface World {
  params: WorldParams;
  seed: number;
  /** a name for tables (the family's draw, or small/large) */
  name: string;
  objectives: WorldObjective[];
  items: WorldItem[];
  itemById: Map<string, number>;
  targets: number[];
  /** objectives in the goal's scope (targets + prerequisites within remediation depth), topological order */
  scope: number[];
  /** objectives a student must know for the targets: the targets and all their ancestors */
  needed: Set<number>;
  students: Student[];
}

export function makeRng(seed: number) {
  const next = mulberry32(seed);
  const rng = {
    next,
    uniform: ([a, b]: Range) => a + (b - a) * next(),
    logUniform: ([a, b]: Range) => Math.exp(Math.log(a) + (Math.log(b) - Math.log(a)) * next()),
    int: (a: number, b: number) => a + Math.floor(next() * (b - a + 1)),
    normal: () => {
      const u = Math.max(1e-12, next());
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
    },
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T,
  };
  return rng;
}

export function generateWorld(params: WorldParams, seed: number, name = `${params.objectives}`): World {
  const rng = makeRng(seed * 7919 + 17);
  // Draws the first worlds did not make come from a stream of their own, so SMALL and LARGE stay the same worlds.
  const extra = makeRng(seed * 104_729 + 3);
  const n = params.objectives;
  const roots = Math.max(1, Math.round(n * params.rootShare));
  const objectives: WorldObjective[] = [];
  const items: WorldItem[] = [];
  for (let i = 0; i < n; i++) {
    const prereqs: number[] = [];
    if (i >= roots) {
      const lo = Math.max(0, i - params.window);
      // never more prerequisites than the window holds candidates
      const k = rng.int(1, Math.min(params.maxPrereqs, i - lo));
      // the nearest earlier objective is always a candidate first: chains get deep
      while (prereqs.length < k) {
        const p = prereqs.length === 0 ? rng.int(Math.max(lo, i - 2), i - 1) : rng.int(lo, i - 1);
        if (!prereqs.includes(p)) prereqs.push(p);
      }
      prereqs.sort((a, b) => a - b);
    }
    const o: WorldObjective = {
      id: `lref-o${i}`,
      prereqs,
      items: [],
      instruction: [],
      learn: params.learnScale === "log" ? rng.logUniform(params.learn) : rng.uniform(params.learn),
    };
    const m = rng.int(params.itemsPerObjective[0], params.itemsPerObjective[1]);
    for (let j = 0; j < m; j++) {
      o.items.push(items.length);
      items.push({
        id: `mref-q${i}-${j}`,
        objective: i,
        kind: "assessment",
        guess: rng.uniform(params.guess),
        slip: rng.uniform(params.slip),
        difficulty: extra.uniform([-0.5, 0.5]),
      });
    }
    if (rng.next() < params.instructionShare) {
      const count = extra.int(1, Math.max(1, params.maxInstruction));
      for (let j = 0; j < count; j++) {
        o.instruction.push(items.length);
        items.push({ id: j === 0 ? `mref-i${i}` : `mref-i${i}-${j}`, objective: i, kind: "instructional", guess: 0, slip: 0, difficulty: 0 });
      }
    }
    objectives.push(o);
  }
  const itemById = new Map<string, number>();
  for (const [i, it] of items.entries()) itemById.set(it.id, i);

  // Depth (longest prerequisite chain) and the targets: the deepest objectives, distinct.
  const depth = objectives.map(() => 0);
  for (const [i, o] of objectives.entries()) for (const p of o.prereqs) depth[i] = Math.max(depth[i] as number, (depth[p] as number) + 1);
  const byDepth = objectives.map((_, i) => i).sort((a, b) => (depth[b] as number) - (depth[a] as number) || b - a);
  const pool = byDepth.slice(0, Math.max(params.targets, Math.ceil(n / 4)));
  const targets: number[] = [];
  while (targets.length < Math.min(params.targets, pool.length)) {
    const t = rng.pick(pool);
    if (!targets.includes(t)) targets.push(t);
  }
  targets.sort((a, b) => a - b);

  // Scope: BFS down the prerequisites within the remediation depth (same rule as resolveGoalScope).
  const levels = { none: 0, one: 1, two: 2, three: 3, maximum: Infinity }[params.remediationDepth];
  const dist = new Map<number, number>();
  let frontier = [...targets];
  for (const t of targets) dist.set(t, 0);
  for (let level = 1; level <= levels && frontier.length; level++) {
    const next: number[] = [];
    for (const o of frontier)
      for (const p of objectives[o]!.prereqs)
        if (!dist.has(p)) {
          dist.set(p, level);
          next.push(p);
        }
    frontier = next;
  }
  const scope = [...dist.keys()].sort((a, b) => a - b);
  const needed = new Set<number>();
  const stack = [...targets];
  while (stack.length) {
    const o = stack.pop() as number;
    if (needed.has(o)) continue;
    needed.add(o);
    stack.push(...objectives[o]!.prereqs);
  }

  // Students.
  const students: Student[] = [];
  const inScope = new Set(scope);
  const topDepth = Math.max(...targets.map((t) => depth[t] as number)) + 1;
  const baseDepth = params.knownOver === "graph" ? 0 : Math.min(...scope.map((o) => depth[o] as number));
  for (let s = 0; s < params.students; s++) {
    const level = baseDepth + rng.uniform(params.known) * (topDepth - baseDepth);
    const known = objectives.map(() => false);
    // Out-of-scope objectives the targets need are known (remediation cannot reach them), with their
    // ancestors (consistency); the rest is drawn in topological order.
    const forced = new Set<number>();
    const mark = (o: number) => {
      if (forced.has(o)) return;
      forced.add(o);
      objectives[o]!.prereqs.forEach(mark);
    };
    for (const o of needed) if (!inScope.has(o)) mark(o);
    for (let i = 0; i < n; i++) {
      const ready = objectives[i]!.prereqs.every((p) => known[p]);
      known[i] = forced.has(i) || (ready && (depth[i] as number) + 0.75 * rng.normal() < level);
    }
    const [lo, hi] = params.speedRange;
    const learnMultiplier = Math.min(hi, Math.max(lo, Math.exp(params.learnerSpread * rng.normal())));
    let blocked = -1;
    if (rng.next() < params.blockedShare) {
      const candidates = scope.filter((o) => needed.has(o) && !known[o]);
      if (candidates.length) blocked = rng.pick(candidates);
    }
    students.push({ index: s, known, learnMultiplier, blocked, seed: (seed * 1_000_003 + s * 7_919 + 1) >>> 0 });
  }
  return { params, seed, name, objectives, items, itemById, targets, scope, needed, students };
}

/** The world's knowledge graph as a partner would send it (POST /v0/graphs). */
export function graphDocument(world: World): GraphDocument {
  return {
    label: `gref-sim-${world.params.objectives}-${world.seed}`,
    name: `Simulated world (${world.params.objectives} objectives, seed ${world.seed})`,
    learning_objectives: world.objectives.map((o) => ({ id: o.id, name: o.id, prerequisites: o.prereqs.map((p) => world.objectives[p]!.id) })),
    modules: world.items.map((it) => ({
      id: it.id,
      name: it.id,
      type: it.kind,
      learning_objectives: [world.objectives[it.objective]!.id],
      algorithmic: false,
    })),
  } as GraphDocument;
}

/** The goal body a partner would create for the world (POST .../scoped-goals). */
export function goalBody(world: World, behavior: "practice" | "introduce" | "review" = "practice") {
  return {
    name: "Simulated goal",
    adaptive_behavior: behavior,
    targets: { include: world.targets.map((t) => world.objectives[t]!.id), completion_behavior: "all" as const },
    scope: { remediation_depth: world.params.remediationDepth, include: [] as string[], exclude: [] as string[] },
    completion_criteria: { min_predicted_mastery: 0.8 },
  };
}
