import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { callerRules } from "../../src/http/caller-rules";
import type { Json } from "../support/api";
import { BASE, rawCall } from "../support/raw-call";

let doc: Json;
beforeAll(async () => {
  const res = await rawCall("GET", "/v0/openapi.json");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/application\/json/);
  doc = res.body;
});

const operation = (method: string, path: string): Json | undefined => doc.paths?.[path]?.[method.toLowerCase()];

describe("GET /v0/openapi.json", () => {
  it("is OpenAPI 3.1 with a bearer security scheme", () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info?.title).toBeTruthy();
    const schemes = Object.values(doc.components?.securitySchemes ?? {}) as Json[];
    expect(schemes.some((s) => s.type === "http" && String(s.scheme).toLowerCase() === "bearer")).toBe(true);
  });

  it("documents every route of callerRules, secured by the bearer scheme, with path parameters and error responses", () => {
    const bearerNames = Object.entries(doc.components.securitySchemes as Record<string, Json>)
      .filter(([, s]) => s.type === "http" && String(s.scheme).toLowerCase() === "bearer")
      .map(([name]) => name);
    for (const key of Object.keys(callerRules)) {
      const [method, path] = key.split(" ") as [string, string];
      const op = operation(method, path);
      expect(op, `${key} is missing from the OpenAPI document`).toBeDefined();
      const security = (op!.security ?? doc.security ?? []) as Json[];
      expect(
        security.some((req) => bearerNames.some((n) => n in req)),
        `${key} security`,
      ).toBe(true);
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        const param = (op!.parameters as Json[] | undefined)?.find((p) => p.in === "path" && p.name === name);
        expect(param, `${key} documents path parameter ${name}`).toBeDefined();
        expect(param!.required).toBe(true);
      }
      const statuses = Object.keys(op!.responses ?? {});
      expect(
        statuses.some((s) => /^2\d\d$/.test(s)),
        `${key} success response`,
      ).toBe(true);
      for (const s of ["400", "401", "403", "404"]) expect(statuses, `${key} documents ${s}`).toContain(s);
    }
  });

  it("every bearer-secured operation has a caller rule (no undocumented rule, no unruled route)", () => {
    const ruled = new Set(Object.keys(callerRules));
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const [method, op] of Object.entries(item)) {
        if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
        const secured = ((op as Json).security ?? []).some((req: Json) => "Bearer" in req);
        if (secured) expect(ruled.has(`${method.toUpperCase()} ${path}`), `${method} ${path}`).toBe(true);
      }
    }
  });

  it("documents the token endpoint (form-encoded, Basic auth, RFC 6749 errors)", () => {
    const op = operation("POST", "/v0/oauth/token");
    expect(op).toBeDefined();
    expect(Object.keys(op!.requestBody?.content ?? {})).toContain("application/x-www-form-urlencoded");
    expect(Object.keys(op!.responses)).toEqual(expect.arrayContaining(["200", "400", "401"]));
    const schemes = doc.components.securitySchemes as Record<string, Json>;
    const basic = (op!.security as Json[]).flatMap((req) => Object.keys(req));
    expect(basic.some((n) => String(schemes[n]?.scheme).toLowerCase() === "basic")).toBe(true);
  });

  it("declares the decided error body", () => {
    const error = doc.components?.schemas?.Error;
    expect(error).toBeDefined();
    expect(error.required).toEqual(expect.arrayContaining(["code", "message", "error_id"]));
    expect(Object.keys(error.properties)).toEqual(expect.arrayContaining(["code", "message", "error_id", "details"]));
  });
});

describe("GET /docs", () => {
  it("serves HTML whose scripts and styles are all the service's own paths (no external URLs)", async () => {
    const res = await rawCall("GET", "/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    const html = String(res.body);
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/(src|href)\s*=\s*["']\/\//i);
    const refs = [...html.matchAll(/(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]!);
    expect(refs.some((r) => r.endsWith(".js"))).toBe(true);
    expect(refs.some((r) => r.endsWith(".css"))).toBe(true);
    // Those files are static assets, served in front of the Worker: test/local/docs.test.ts fetches them
    // (the empty favicon is an inline data: URL, so the browser requests no /favicon.ico).
    for (const ref of refs) expect(ref.startsWith("/docs/assets/") || ref === "data:,", ref).toBe(true);
  });

  it("sends /docs/ (a trailing slash) to the page", async () => {
    const res = await SELF.fetch(`${BASE}/docs/`, { redirect: "manual" });
    expect(res.status).toBe(308);
    expect(res.headers.get("location")).toBe("/docs");
  });
});
