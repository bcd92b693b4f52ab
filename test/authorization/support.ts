import { type Fixture, newFixture, type World } from "../core-api/fixture";
import { ensureDemoGraph, freshAdminToken, type Json, type Partner, uniqueId } from "../support/api";
import { assignGoal, createGoal, goalBody } from "../support/goals";

/** The routes the roster matrix (test/core-api/authorization-matrix.test.ts) covers. */
export { ROSTER_ROUTE } from "../core-api/fixture";

/** One partner's resources the matrix names: the core-api fixture's world plus its graph and a goal assigned to the owner's registration. */
export interface Side {
  p: Partner;
  world: World;
  /** the partner's gref-demo graph (ingest answer: id, label, version, ...) */
  graph: Json;
  /** a goal of world.li assigned to world.ownerReg */
  goal: Json;
}

export interface MatrixFixture extends Fixture {
  sideA: Side;
  sideB: Side;
}

async function sideOf(p: Partner, world: World): Promise<Side> {
  const graph = await ensureDemoGraph(p);
  const goal = await createGoal(p, world.li.id, goalBody({ name: `Matrix goal ${uniqueId("g")}` }), await freshAdminToken(p));
  await assignGoal(p, world.li.id, goal.id, world.ownerReg.id, await freshAdminToken(p));
  return { p, world, graph, goal };
}

export async function newMatrixFixture(): Promise<MatrixFixture> {
  const fx = await newFixture();
  const [sideA, sideB] = await Promise.all([sideOf(fx.a, fx.world), sideOf(fx.b, fx.bWorld)]);
  return { ...fx, sideA, sideB };
}

/** The registration's Durable Object (event log and learner state). */

export const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
