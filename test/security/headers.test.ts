import { beforeAll, describe, expect, it } from "vitest";
import { createAccount, newPartner, type Partner, tokenRequest, uniqueId } from "../support/api";
import { fetchWith } from "../support/app";
import { type ApiResponse, rawCall } from "../support/raw-call";
import { api } from "../support/typed-api";

/**
 * Response headers (docs/security.md): nosniff on everything the Worker answers, no-store on the
 * whole /v0 API (tokens and learner data), a self-only Content-Security-Policy on the /docs page,
 * and CORS only for the origins a deployment lists.
 */

let p: Partner;
beforeAll(async () => {
  p = await newPartner("Headers");
});

async function samples(): Promise<[string, ApiResponse][]> {
  const account = await createAccount(p);
  return [
    ["200", await api("GET", "/v0/accounts/current", { token: p.adminToken })],
    ["201", await api("POST", "/v0/accounts", { token: p.adminToken, body: { external_user_id: uniqueId() } })],
    ["204", await api("DELETE", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: account.id } })],
    ["400", await api("GET", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: "not-a-uuid" } })],
    ["401", await api("GET", "/v0/accounts/current")],
    ["404", await api("GET", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: crypto.randomUUID() } })],
    ["404 route", await rawCall("GET", "/v0/nowhere")],
    ["413", await rawCall("POST", "/v0/accounts", { token: p.adminToken, raw: "x".repeat(1024 * 1024 + 1), headers: { "Content-Type": "application/json" } })],
    ["token 200", await tokenRequest(p.client_id, p.client_secret, { grant_type: "client_credentials", scope: p.admin_external_user_id })],
    ["token 401", await tokenRequest(p.client_id, "wrong", { grant_type: "client_credentials", scope: p.admin_external_user_id })],
    ["openapi", await rawCall("GET", "/v0/openapi.json")],
  ];
}

describe("every Worker response", () => {
  it("carries X-Content-Type-Options: nosniff; every /v0 response Cache-Control: no-store", async () => {
    for (const [what, res] of await samples()) {
      // each sample is the case it is named after (a status changed would leave that path untested)
      const status = /\d{3}/.exec(what)?.[0];
      expect(res.status, what).toBe(status ? Number(status) : 200);
      expect(res.headers.get("x-content-type-options"), what).toBe("nosniff");
      expect(res.headers.get("cache-control"), what).toBe("no-store");
    }
    const docs = await rawCall("GET", "/docs");
    expect(docs.headers.get("x-content-type-options")).toBe("nosniff");
    const unknown = await rawCall("GET", "/nowhere");
    expect(unknown.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("GET /docs", () => {
  it("has a Content-Security-Policy allowing only this origin's scripts, styles and fetches, no inline code, no framing", async () => {
    const res = await rawCall("GET", "/docs");
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy") ?? "";
    const directives = Object.fromEntries(
      csp
        .split(";")
        .map((d) => d.trim().split(/\s+/) as [string, ...string[]])
        .map(([k, ...v]) => [k, v]),
    );
    expect(directives["default-src"]).toEqual(["'none'"]);
    expect(directives["script-src"]).toEqual(["'self'"]);
    expect(directives["style-src"]).toEqual(["'self'"]);
    expect(directives["connect-src"]).toEqual(["'self'"]);
    expect(directives["frame-ancestors"]).toEqual(["'none'"]);
    expect(directives["base-uri"]).toEqual(["'none'"]);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    // the page itself has no inline script or style the policy would block
    expect(String(res.body)).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son\w+=/i);
  });
});

describe("CORS", () => {
  const ORIGIN = "https://app.example.com";
  const listed = { CORS_ALLOWED_ORIGINS: `${ORIGIN}, https://admin.example.com:8443` };
  const preflight = (origin: string, overrides = {}) =>
    fetchWith(overrides, "/v0/accounts", {
      method: "OPTIONS",
      headers: { Origin: origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type, idempotency-key" },
    });

  it("off by default: no Access-Control-* header on requests or preflights", async () => {
    const res = await api("GET", "/v0/accounts/current", { token: p.adminToken, headers: { Origin: ORIGIN } });
    expect(res.status).toBe(200);
    expect([...res.headers.keys()].filter((h) => h.startsWith("access-control-"))).toEqual([]);
    const pre = await preflight(ORIGIN);
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
    expect(pre.status).toBe(404);
  });

  it("a listed origin: the preflight is 204 with the allowed methods and headers; the response names the origin and exposes the tracing and rate-limit headers", async () => {
    const pre = await preflight(ORIGIN, listed);
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(pre.headers.get("access-control-allow-methods")).toMatch(/POST/);
    const allowed = (pre.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(",");
    for (const h of ["authorization", "content-type", "idempotency-key", "request-label"]) expect(allowed).toContain(h);
    expect(pre.headers.get("access-control-allow-credentials")).toBeNull();
    expect(pre.headers.get("vary") ?? "").toMatch(/Origin/);

    const res = await fetchWith(listed, "/v0/accounts/current", { headers: { Origin: ORIGIN, Authorization: `Bearer ${p.adminToken}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(res.headers.get("vary") ?? "").toMatch(/Origin/);
    const exposed = (res.headers.get("access-control-expose-headers") ?? "").toLowerCase().split(",");
    for (const h of ["x-request-id", "retry-after", "x-service-rate-exceeded"]) expect(exposed).toContain(h);
    // errors carry it too, so a browser client can read them
    const err = await fetchWith(listed, "/v0/accounts/current", { headers: { Origin: ORIGIN } });
    expect(err.status).toBe(401);
    expect(err.headers.get("access-control-allow-origin")).toBe(ORIGIN);
  });

  it("an unlisted origin gets no Access-Control-Allow-Origin (the browser refuses), requests without Origin are unaffected", async () => {
    for (const origin of ["https://evil.example.com", "https://app.example.com.evil.com", "null", "http://app.example.com"]) {
      const pre = await preflight(origin, listed);
      expect(pre.headers.get("access-control-allow-origin"), origin).toBeNull();
      const res = await fetchWith(listed, "/v0/accounts/current", { headers: { Origin: origin, Authorization: `Bearer ${p.adminToken}` } });
      expect(res.headers.get("access-control-allow-origin"), origin).toBeNull();
    }
    const plain = await fetchWith(listed, "/v0/accounts/current", { headers: { Authorization: `Bearer ${p.adminToken}` } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("the /docs page is not under CORS", async () => {
    const res = await fetchWith(listed, "/docs", { headers: { Origin: ORIGIN } });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});
