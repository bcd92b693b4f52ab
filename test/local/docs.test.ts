import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalService, startLocalService } from "../../scripts/lib/local-service";

/**
 * The API reference as a browser gets it from the Worker served by `wrangler dev` (static assets in
 * front of the Worker, as on Cloudflare): the page, and every file it references, from this origin.
 */
let service: LocalService;
beforeAll(async () => {
  service = await startLocalService();
}, 120_000);
afterAll(async () => {
  await service?.stop();
});

describe("GET /docs (served)", () => {
  it("serves the page and every script and style it references from this origin, with no external URL", async () => {
    const page = await fetch(`${service.base}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const refs = [...html.matchAll(/(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThanOrEqual(3);
    for (const ref of refs) {
      const asset = await fetch(`${service.base}${ref}`);
      expect(asset.status, ref).toBe(200);
      const type = asset.headers.get("content-type") ?? "";
      if (ref.endsWith(".js")) expect(type, ref).toMatch(/javascript/);
      if (ref.endsWith(".css")) expect(type, ref).toMatch(/text\/css/);
      expect(asset.headers.get("x-content-type-options"), ref).toBe("nosniff");
      const body = await asset.text();
      expect(body.length, ref).toBeGreaterThan(10);
      if (!ref.includes("/vendor/")) expect(body, ref).not.toMatch(/https?:\/\//);
    }
    const init = await (await fetch(`${service.base}/docs/assets/init.js`)).text();
    expect(init).toContain("/v0/openapi.json");
  });

  it("serves the installed Swagger UI version, byte for byte", async () => {
    const served = await (await fetch(`${service.base}/docs/assets/vendor/swagger-ui-bundle.js`)).text();
    expect(served).toBe(readFileSync("node_modules/swagger-ui-dist/swagger-ui-bundle.js", "utf8"));
  });
});
