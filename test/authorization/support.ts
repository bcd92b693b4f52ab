import { env } from "cloudflare:test";
import { signAccessToken } from "../../src/auth/access-token";
import { type Fixture, newFixture, type World } from "../foundation/fixture";
import { call, ensureDemoGraph, type Json, type Partner, uniqueId } from "../support/api";
import { demoGraph } from "../support/demo-graph";
import { assignmentPath, goalBody, goalsPath } from "../support/goals";

/** The routes the foundation matrix (test/foundation/authorization-matrix.test.ts) covers. */
export { FOUNDATION_ROUTE } from "../foundation/fixture";

/**
 * A fresh, validly signed access token (same claims the token endpoint issues). Every token has
 * its own rate-limit windows, so each matrix cell and each follow-up read gets its own.
 */
export function mintToken(partnerId: string, accountId: string, admin: boolean): Promise<string> {
  return signAccessToken(
    { jti: crypto.randomUUID(), partner_id: partnerId, account_id: accountId, admin, exp: Math.floor(Date.now() / 1000) + 600 },
    env.TOKEN_SIGNING_KEY,
  );
}

export const adminTokenOf = (p: Partner) => mintToken(p.partner_id, p.admin_account_id, true);

/** One partner's resources the matrix names: the foundation world plus its graph and a goal assigned to the owner's registration. */
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

export async function createGoalAs(p: Partner, liId: string, body: Json = goalBody()): Promise<Json> {
  const res = await call("POST", goalsPath(liId), { token: await adminTokenOf(p), body });
  if (res.status !== 201) throw new Error(`create goal: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function assignAs(p: Partner, liId: string, goalId: string, regId: string): Promise<void> {
  const res = await call("PUT", assignmentPath(liId, goalId, regId), { token: await adminTokenOf(p) });
  if (res.status !== 200) throw new Error(`assign goal: ${res.status} ${JSON.stringify(res.body)}`);
}

export async function createGraphAs(p: Partner, label = uniqueId("gref-mx")): Promise<Json> {
  const res = await call("POST", "/v0/graphs", { token: await adminTokenOf(p), body: demoGraph(label) });
  if (res.status !== 201) throw new Error(`create graph: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function sideOf(p: Partner, world: World): Promise<Side> {
  const graph = await ensureDemoGraph(p);
  const goal = await createGoalAs(p, world.li.id, goalBody({ name: `Matrix goal ${uniqueId("g")}` }));
  await assignAs(p, world.li.id, goal.id, world.ownerReg.id);
  return { p, world, graph, goal };
}

export async function newMatrixFixture(): Promise<MatrixFixture> {
  const fx = await newFixture();
  const [sideA, sideB] = await Promise.all([sideOf(fx.a, fx.world), sideOf(fx.b, fx.bWorld)]);
  return { ...fx, sideA, sideB };
}

/** The registration's Durable Object (event log and learner state). */

export const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
