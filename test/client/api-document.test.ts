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
