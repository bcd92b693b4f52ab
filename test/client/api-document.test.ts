import { SELF } from "cloudflare:test";
import { expect, it } from "vitest";

/**
 * The client's types are generated from the API's own OpenAPI document (client/openapi.json, then
 * client/schema.ts; docs/client.md). This test fails when the Worker serves a document that differs
 * from the committed copy: run `npm run client:generate` and commit both files.
 */
it("client/openapi.json is the document the Worker serves (else: npm run client:generate)", async () => {
  const res = await SELF.fetch("https://pathwise.test/v0/openapi.json");
  expect(res.status).toBe(200);
  const served = `${JSON.stringify(await res.json(), null, 2)}\n`;
  await expect(served).toMatchFileSnapshot("../../client/openapi.json");
});

/** The analytics, batch-events and scoped-goal endpoints show a request example in the API reference (/docs). */
it("every analytics, batch-events and scoped-goal request body has an example in the served document", async () => {
  const doc = (await (await SELF.fetch("https://pathwise.test/v0/openapi.json")).json()) as any;
  const resolve = (schema: any): any => (schema?.$ref ? resolve(doc.components.schemas[schema.$ref.split("/").pop()]) : schema);
  const wanted = /\/metrics\/|\/batch-events$|\/scoped-goals(\/\{goal_id\}(\/registrations)?)?$/;
  let checked = 0;
  for (const [path, item] of Object.entries(doc.paths as Record<string, any>)) {
    for (const [method, op] of Object.entries(item as Record<string, any>)) {
      const schema = op.requestBody?.content?.["application/json"]?.schema;
      if (!schema || !wanted.test(path)) continue;
      expect(resolve(schema).example, `${method.toUpperCase()} ${path}`).toBeDefined();
      checked++;
    }
  }
  expect(checked).toBeGreaterThanOrEqual(16);
});

/**
 * What a partner's generator needs from every operation (docs/api-document.md): a unique verb-first
 * operationId (the method name in a Python, Java or C# client), a summary and a description, one
 * tag that the document defines with a description, and a typed body for every refusal.
 */
it("every operation has a unique verb-first operationId, a summary, a description, a defined tag and typed error bodies", async () => {
  const doc = (await (await SELF.fetch("https://pathwise.test/v0/openapi.json")).json()) as any;
  const tags = new Map<string, string>((doc.tags as { name: string; description: string }[]).map((t) => [t.name, t.description]));
  const ids = new Set<string>();
  let operations = 0;
  for (const [path, item] of Object.entries(doc.paths as Record<string, any>)) {
    for (const [method, op] of Object.entries(item as Record<string, any>)) {
      const where = `${method.toUpperCase()} ${path}`;
      operations++;
      expect(op.operationId, where).toMatch(/^[a-z]+[A-Z][A-Za-z]+$/);
      expect(ids.has(op.operationId), `${where}: ${op.operationId} used twice`).toBe(false);
      ids.add(op.operationId);
      expect(op.summary?.length, where).toBeGreaterThan(5);
      expect(op.description?.length, where).toBeGreaterThan(20);
      expect(op.tags, where).toHaveLength(1);
      expect(tags.get(op.tags[0])?.length, `${where}: tag ${op.tags[0]} defined with a description`).toBeGreaterThan(10);
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        if (Number(status) < 400) continue;
        const ref = response.content?.["application/json"]?.schema?.$ref;
        expect(ref, `${where} ${status}`).toMatch(/^#\/components\/schemas\/(Error|OAuthError)$/);
      }
    }
  }
  expect(operations).toBeGreaterThanOrEqual(47);
  expect(doc.servers.map((s: { url: string }) => s.url)).toContain("http://localhost:8787");
  expect(doc.servers.length).toBeGreaterThanOrEqual(2);
  // swagger-cli's 3.1 validator refuses any server `variables` (a bug of that tool, still in partners' pipelines)
  for (const server of doc.servers) expect(server, server.url).not.toHaveProperty("variables");
  expect(doc.info.license.name).toBeTruthy();
  expect(doc.info.contact.email).toBeTruthy();
});

/** The document cannot drift back: a route without an operationId, summary or description fails when it is defined. */
it("apiRoute refuses a route whose operationId, summary, description or error body is missing", async () => {
  const { apiRoute } = await import("../../src/http/define-route");
  const { json } = await import("../../src/schemas/common");
  const { z } = await import("@hono/zod-openapi");
  const base = { method: "get" as const, path: "/v0/accounts/current", tags: ["Accounts"], responses: { 200: { description: "ok" } } };
  const docs = { operationId: "getCurrentAccount", summary: "Get the caller's own account", description: "The account the access token acts for." };
  expect(() => apiRoute({ ...base, ...docs })).not.toThrow();
  expect(() => apiRoute({ ...base, ...docs, operationId: "" })).toThrow(/operationId/);
  expect(() => apiRoute({ ...base, ...docs, operationId: "currentAccount" })).toThrow(/verb-first/);
  expect(() => apiRoute({ ...base, ...docs, summary: " " })).toThrow(/summary and a description/);
  expect(() => apiRoute({ ...base, ...docs, description: "" })).toThrow(/summary and a description/);
  expect(() => apiRoute({ ...base, ...docs, responses: { 200: { description: "ok" }, 422: json(z.any(), "untyped") } })).toThrow(/422/);
});

/** Every route has a caller rule and a rate-limit row: a route missing either fails when it is defined. */
it("apiRoute refuses a route with no caller rule or no rate-limit row", async () => {
  const { apiRoute } = await import("../../src/http/define-route");
  const { callerRules } = await import("../../src/http/caller-rules");
  const docs = { operationId: "getUnlisted", summary: "A route in no table", description: "Only this test defines it.", tags: ["Accounts"] };
  const route = { ...docs, method: "get" as const, path: "/v0/unlisted", responses: { 200: { description: "ok" } } };
  expect(() => apiRoute(route)).toThrow(/No caller rule for GET \/v0\/unlisted/);
  // the same route with a caller rule, still without a rate-limit row
  const rules = callerRules as Record<string, readonly string[]>;
  rules["GET /v0/unlisted"] = ["admin"];
  try {
    expect(() => apiRoute(route)).toThrow(/No rate-limit row for GET \/v0\/unlisted/);
  } finally {
    delete rules["GET /v0/unlisted"];
  }
});

/**
 * A pattern in the document is read by partners' tools (Python's `re`, Java, Spectral), not only by
 * JavaScript with the `u` flag: each compiles as a plain ECMA-262 regex and uses no Unicode property
 * escape or code-point brace, which JSON Schema's interoperable regex subset leaves out.
 */
it("every pattern in the served document is a portable regular expression", async () => {
  const doc = await (await SELF.fetch("https://pathwise.test/v0/openapi.json")).json();
  const patterns: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === "object")
      for (const [key, value] of Object.entries(node)) key === "pattern" && typeof value === "string" ? patterns.push(value) : walk(value);
  };
  walk(doc);
  expect(patterns.length).toBeGreaterThan(20);
  for (const p of patterns) {
    expect(p, p).not.toMatch(/\\p\{|\\P\{|\\u\{/);
    expect(() => new RegExp(p), p).not.toThrow();
  }
});

/** A description that tells a partner to add `?name=` names a query parameter the operation takes (a wrong name is silently ignored). */
it("every query parameter a description names is one the operation takes", async () => {
  const doc = (await (await SELF.fetch("https://pathwise.test/v0/openapi.json")).json()) as any;
  let named = 0;
  for (const [path, item] of Object.entries(doc.paths as Record<string, any>)) {
    for (const [method, op] of Object.entries(item as Record<string, any>)) {
      const query = new Set(((op.parameters ?? []) as { name: string; in: string }[]).filter((p) => p.in === "query").map((p) => p.name));
      for (const [, name] of `${op.summary} ${op.description}`.matchAll(/\?([a-z_]+)=/g)) {
        expect(query.has(name as string), `${method.toUpperCase()} ${path} names ?${name}=`).toBe(true);
        named++;
      }
    }
  }
  expect(named).toBeGreaterThanOrEqual(1);
});
