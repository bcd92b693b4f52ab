import { describe, expect, inject, it } from "vitest";

/**
 * decisions.md "HTTP conventions": every response carries X-Request-Id, the static assets' too
 * (public/: the dashboard and the API reference's scripts), as `wrangler dev` serves them; and the
 * assets keep the headers public/_headers gives them.
 */
const service = inject("localService");
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function served(path: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(`${service.base}${path}`, { redirect: "manual", ...init });
  await res.arrayBuffer();
  return res;
}

describe("X-Request-Id on static assets", () => {
  it("the dashboard, its assets and the API reference's assets carry a fresh id and echo Request-Label", async () => {
    const ids = new Set<string>();
    for (const path of [
      "/dashboard",
      "/dashboard/assets/dashboard.js",
      "/dashboard/assets/dashboard.css",
      "/docs/assets/init.js",
      "/docs/assets/vendor/swagger-ui.css",
      "/docs",
      "/v0/openapi.json",
    ]) {
      const res = await served(path, { headers: { "Request-Label": `label ${path}` } });
      expect(res.status, path).toBe(200);
      const id = res.headers.get("x-request-id") ?? "";
      expect(id, path).toMatch(UUID);
      ids.add(id);
      expect(res.headers.get("request-label"), path).toBe(`label ${path}`);
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
    }
    expect(ids.size).toBe(7);
  });

  it("also on a redirect, a HEAD, a 304 and a path that is neither a route nor a file", async () => {
    const page = await served("/dashboard");
    const etag = page.headers.get("etag");
    expect(etag).toBeTruthy();
    const responses: [string, Response, number][] = [
      ["/dashboard.html", await served("/dashboard.html"), 307],
      ["HEAD /dashboard", await served("/dashboard", { method: "HEAD" }), 200],
      ["If-None-Match", await served("/dashboard", { headers: { "If-None-Match": etag ?? "" } }), 304],
      ["/dashboard/assets/missing.js", await served("/dashboard/assets/missing.js"), 404],
    ];
    for (const [what, res, status] of responses) {
      expect(res.status, what).toBe(status);
      expect(res.headers.get("x-request-id"), what).toMatch(UUID);
    }
  });

  it("public/_headers still applies: the dashboard's CSP and no-store, the reference's cache lifetime", async () => {
    const dashboard = await served("/dashboard");
    expect(dashboard.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(dashboard.headers.get("cache-control")).toBe("no-store");
    expect(dashboard.headers.get("x-frame-options")).toBe("DENY");
    expect((await served("/docs/assets/init.js")).headers.get("cache-control")).toBe("public, max-age=86400");
  });
});
