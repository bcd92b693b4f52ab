import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createPathwiseClient, isPathwiseError } from "../../client";
import { createAccount, createInstance, freshAdminToken, newPartner, register } from "../support/api";
import { api } from "../support/typed-api";

/** pathwise/client's data lifecycle helpers against the real Worker: pw.eraseAccount waits for the receipt; the export iterators stream. */
describe("pathwise/client: erasure and export", () => {
  it("exportAccount streams the document's bytes, exportStatements yields each statement; eraseAccount resolves with the complete receipt", async () => {
    const p = await newPartner("Client lifecycle partner");
    const pw = createPathwiseClient({ baseUrl: "https://pathwise.test", token: () => freshAdminToken(p), fetch: (r) => SELF.fetch(r) });
    const account = await createAccount(p);
    const reg = await register(p, account.id, (await createInstance(p)).id, "learner");
    const events = Array.from({ length: 1200 }, (_, k) => ({
      type: "graded-events" as const,
      module_id: k % 2 ? "mref-a1" : "mref-b1",
      interaction_end_time: new Date(Date.now() - 5 * 3600_000 + k * 1000).toISOString(),
      is_correct: k % 3 !== 0,
    }));
    expect(await pw.sendEvents(reg.id, events)).toEqual({ batches: 3, events: 1200 });

    const chunks: Uint8Array[] = [];
    for await (const chunk of pw.exportAccount(account.id)) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    const doc = JSON.parse(new TextDecoder().decode(Buffer.concat(chunks)));
    expect(doc.registrations[0].events).toHaveLength(1200);

    let n = 0;
    for await (const statement of pw.exportStatements(account.id)) {
      expect(statement.context?.registration).toBe(reg.id);
      n++;
    }
    expect(n).toBe(1200);

    const receipt = await pw.eraseAccount(account.id, { pollIntervalMs: 100 });
    expect(receipt).toMatchObject({ account_id: account.id, status: "complete", removed: { events: 1200, registrations: 1 } });
    expect((await api("GET", "/v0/accounts/{account_id}", { token: await freshAdminToken(p), path: { account_id: account.id } })).status).toBe(404);

    // the export of an erased account is a typed 404
    const refused = await (async () => {
      for await (const _ of pw.exportAccount(account.id)) return undefined;
    })().catch((e: unknown) => e);
    expect(isPathwiseError(refused) && refused.status).toBe(404);
  }, 60_000);
});
