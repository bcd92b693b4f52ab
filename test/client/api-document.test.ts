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
