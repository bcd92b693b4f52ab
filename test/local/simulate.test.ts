import { describe, expect, inject, it } from "vitest";
import { httpFactory, provisionWorld, simulatorClient } from "../../scripts/simulate/http";
import { Learner } from "../../scripts/simulate/learners";
import { generateWorld, SMALL } from "../../scripts/simulate/world";

/**
 * The learner simulator's HTTP driver (`npm run simulate`) against the Worker served by `wrangler
 * dev` (the project's shared service, the spec's rate limits): everything through the public API
 * (graph, instance, goal, account, registration, assignment, end-user token, recommendations, status
 * and progress, events). A few steps of one student: whole runs are the simulator's business.
 */
const service = inject("localService");

describe("npm run simulate (HTTP driver)", () => {
  it("provisions a world and tutors a student through the public API", async () => {
    const world = generateWorld({ ...SMALL, students: 1 }, 4);
    const student = world.students[0]!;
    const { api, stats } = simulatorClient(service.base, service.credentials);
    const runId = `t${Date.now().toString(36)}`;
    const provisioned = await provisionWorld(api, world, runId);
    const client = await httpFactory(api, provisioned, runId)(world, student);
    const learner = new Learner(world, student);
    let previous: string | undefined;
    for (let step = 0; step < 6; step++) {
      // (the client checks that each recommendation agrees with its status-and-progress row)
      const view = await client.view();
      expect(view.ready).toBe(false);
      expect(view.moduleIds.length).toBeGreaterThan(0);
      expect(view.moduleIds.every((m) => world.itemById.has(m))).toBe(true);
      expect(view.moduleIds[0]).not.toBe(previous); // never the item just answered
      expect(view.current).toMatch(/^lref-o\d+$/);
      if (step > 0) expect(view.workRemaining).toBeGreaterThanOrEqual(0);
      const m = view.moduleIds[0] as string;
      await client.send(m, learner.work(world.itemById.get(m) as number), 0);
      previous = m;
    }
    expect(stats.refused).toBe(0);
  });
});
