import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalService, startLocalService } from "../../scripts/lib/local-service";
import { HttpApi, httpFactory, provisionWorld } from "../../scripts/simulate/http";
import { runWorld } from "../../scripts/simulate/run";
import { generateWorld, SMALL } from "../../scripts/simulate/world";

/**
 * The learner simulator's HTTP driver (`npm run simulate`) against the Worker served by `wrangler
 * dev`: everything through the public API (graph, instance, goal, accounts, registrations,
 * assignments, end-user tokens, recommendations, status and progress, events), a few students.
 */
let service: LocalService;
beforeAll(async () => {
  service = await startLocalService({ vars: { RATE_LIMIT_MULTIPLIER: "1000" } });
}, 120_000);
afterAll(async () => {
  await service?.stop();
});

describe("npm run simulate (HTTP driver)", () => {
  it("tutors simulated students through the public API to the end of their runs", async () => {
    const world = generateWorld({ ...SMALL, students: 3 }, 4);
    const api = new HttpApi(service.base, service.credentials);
    const provisioned = await provisionWorld(api, world, "test");
    const r = await runWorld(world, httpFactory(api, provisioned, "test"), { concurrency: 3 });
    expect(r.a).toHaveLength(3);
    for (const run of r.a) {
      expect(["ready", "stuck", "cap"]).toContain(run.end);
      expect(run.steps).toBeGreaterThan(0);
      // every view came with a status-and-progress row that agreed with the recommendation (checked by the client)
      expect(run.views?.length).toBe(run.steps + 1);
    }
    expect(api.stats.refused).toBe(0);
  }, 180_000);
});
