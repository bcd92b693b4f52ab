import { beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Json, newPartner, type Partner, uniqueId } from "../support/api";
import { rawCall } from "../support/raw-call";
import { api } from "../support/typed-api";
import { expectErrorBody, expectValidation } from "./fixture";

let p: Partner;
let other: Partner;
beforeAll(async () => {
  [p, other] = await Promise.all([newPartner("Accounts A"), newPartner("Accounts B")]);
});

// untyped on purpose: the validation tests send wrong bodies
const post = (body: unknown, token = p.adminToken) => rawCall("POST", "/v0/accounts", { token, body });
const batch = (requests: unknown, token = p.adminToken) => rawCall("POST", "/v0/batch", { token, body: { requests } });
const entry = (external_user_id: unknown) => ({ method: "post", relative_url: "/accounts", body: { external_user_id } });

describe("POST /v0/accounts", () => {
  it("creates an account: 201 with id and external_user_id", async () => {
    const ext = uniqueId("acct");
    const res = await post({ external_user_id: ext });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), external_user_id: ext });
    const got = await api("GET", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: res.body.id } });
    expect(got.status).toBe(200);
    // an end user's account has no entitlements: the field is absent
    expect(got.body).toEqual({ id: res.body.id, external_user_id: ext });
  });

  it("a duplicate external_user_id is 422 and creates nothing", async () => {
    const ext = uniqueId("dup");
    const first = await post({ external_user_id: ext });
    const second = await post({ external_user_id: ext });
    expectErrorBody(second, 422);
    expect(second.body.details?.[0]?.path).toBe("body.external_user_id");
    // the admin's own external_user_id is taken too
    expectErrorBody(await post({ external_user_id: p.admin_external_user_id }), 422);
    // still exactly the first account: a token for the scope acts as it
    const token = await p.tokenFor(ext);
    expect((await api("GET", "/v0/accounts/current", { token })).body.id).toBe(first.body.id);
  });

  it("the same external_user_id is free in another partner (unique per partner)", async () => {
    const ext = uniqueId("shared");
    expect((await post({ external_user_id: ext })).status).toBe(201);
    expect((await post({ external_user_id: ext }, other.adminToken)).status).toBe(201);
  });

  it("an e-mail address as external_user_id is 422 (no personal data)", async () => {
    for (const ext of ["jane.doe@example.com", "student jane@school.edu", "jane\uFF20school.edu"]) {
      const res = await post({ external_user_id: ext });
      expectErrorBody(res, 422);
      expect(res.body.details?.[0]?.path).toBe("body.external_user_id");
    }
  });

  it("malformed input is 400 with details", async () => {
    expectValidation(await post({}), "body.external_user_id");
    expectValidation(await post({ external_user_id: 42 }), "body.external_user_id");
    expectValidation(await post({ external_user_id: null }), "body.external_user_id");
    expectValidation(await post({ external_user_id: "" }), "body.external_user_id");
    expectValidation(await post({ external_user_id: "x".repeat(256) }), "body.external_user_id");
    expectErrorBody(await post([]), 400);
    expectErrorBody(await post("student"), 400);
    expectErrorBody(
      await rawCall("POST", "/v0/accounts", { token: p.adminToken, raw: '{"external_user_id": "a",', headers: { "Content-Type": "application/json" } }),
      400,
    );
    expectErrorBody(await rawCall("POST", "/v0/accounts", { token: p.adminToken }), 400);
  });
});

describe("GET /v0/accounts/{account_id} and /current", () => {
  it("the admin account carries the decided entitlements", async () => {
    const res = await api("GET", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: p.admin_account_id } });
    expect(res.status).toBe(200);
    expect([...(res.body.entitlements ?? [])].sort()).toEqual(
      ["create_learning_instance", "partner_admin", "partner_graph_ingest", "partner_graph_update", "partner_graph_validate"].sort(),
    );
    const current = await api("GET", "/v0/accounts/current", { token: p.adminToken });
    expect(current.body).toEqual(res.body);
  });

  it("'current' is not taken for an account id, and other ids are 400 with details path.account_id", async () => {
    for (const bad of ["not-a-uuid", "123", "00000000-0000-0000-0000-00000000000g", "%20"]) {
      for (const method of ["GET", "DELETE"]) {
        expectValidation(await rawCall(method, `/v0/accounts/${bad}`, { token: p.adminToken }), "path.account_id");
      }
    }
  });

  it("an unknown account is 404", async () => {
    expectErrorBody(await api("GET", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: crypto.randomUUID() } }), 404);
    expectErrorBody(await api("DELETE", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: crypto.randomUUID() } }), 404);
  });
});

describe("DELETE /v0/accounts/{account_id}", () => {
  it("disables the account: 204 without body; again is harmless; the id stays taken", async () => {
    const acct = await createAccount(p);
    const del = await api("DELETE", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: acct.id } });
    expect(del.status).toBe(204);
    expect(del.body).toBeNull();
    const again = await api("DELETE", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: acct.id } });
    expect([204, 404]).toContain(again.status);
    expectErrorBody(await post({ external_user_id: acct.external_user_id }), 422);
  });

  it("the partner admin cannot disable its own account (the partner would be locked out)", async () => {
    const res = await api("DELETE", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: p.admin_account_id } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect((await api("GET", "/v0/accounts/current", { token: p.adminToken })).status).toBe(200);
  });
});

describe("POST /v0/batch (deprecated)", () => {
  it("creates each entry in order; duplicates within the batch and already-used ids are 422 entries while others succeed", async () => {
    const used = (await createAccount(p)).external_user_id;
    const [x, y] = [uniqueId("bx"), uniqueId("by")];
    const res = await batch([entry(x), entry(used), entry(y), entry(x), entry("mail@example.org")]);
    expect(res.status).toBe(200);
    const r = res.body.responses as Json[];
    expect(r.map((e) => e.code)).toEqual([201, 422, 201, 422, 422]);
    expect(r[0]!.body).toEqual({ account_id: expect.any(String), external_user_id: x });
    expect(r[2]!.body).toEqual({ account_id: expect.any(String), external_user_id: y });
    for (const i of [1, 3, 4]) expect(r[i]!.body).toEqual({ code: 422, error_message: expect.any(String) });
    // the created accounts are real
    const got = await api("GET", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: r[0]!.body.account_id } });
    expect(got.body.external_user_id).toBe(x);
  });

  it("accepts /v0/accounts and upper-case POST", async () => {
    const res = await batch([{ method: "POST", relative_url: "/v0/accounts", body: { external_user_id: uniqueId("bv") } }]);
    expect(res.status).toBe(200);
    expect(res.body.responses[0].code).toBe(201);
  });

  it("at most 50 entries: 51 is 400 and creates nothing", async () => {
    const ids = Array.from({ length: 51 }, () => uniqueId("b51"));
    expectValidation(await batch(ids.map(entry)), "body.requests");
    expect((await post({ external_user_id: ids[0] })).status).toBe(201);
    const fifty = await batch(ids.slice(1).map(entry));
    expect(fifty.status).toBe(200);
    expect(fifty.body.responses).toHaveLength(50);
  });

  it("malformed entries are 400 with details naming the entry, and nothing of the batch is created", async () => {
    const good = uniqueId("bgood");
    expectValidation(await batch([entry(good), { method: "get", relative_url: "/accounts", body: { external_user_id: "a" } }]), "body.requests[1].method");
    expectValidation(
      await batch([entry(good), { method: "post", relative_url: "/registrations", body: { external_user_id: "a" } }]),
      "body.requests[1].relative_url",
    );
    expectValidation(await batch([entry(good), { method: "post", relative_url: "/accounts", body: {} }]), "body.requests[1].body.external_user_id");
    expectValidation(await batch([entry(good), entry(17)]), "body.requests[1].body.external_user_id");
    expectValidation(await batch([entry(good), { relative_url: "/accounts", body: { external_user_id: "a" } }]), "body.requests[1].method");
    expectValidation(await batch([]), "body.requests");
    expectValidation(await batch("nope"), "body.requests");
    expectValidation(await rawCall("POST", "/v0/batch", { token: p.adminToken, body: {} }), "body.requests");
    expectErrorBody(await rawCall("POST", "/v0/batch", { token: p.adminToken, raw: "{requests: []}", headers: { "Content-Type": "application/json" } }), 400);
    expect((await post({ external_user_id: good })).status).toBe(201);
  });
});

describe("concurrency", () => {
  it("the same external_user_id created in parallel: exactly one 201, the rest 422", async () => {
    const ext = uniqueId("race");
    const results = await Promise.all(Array.from({ length: 6 }, () => post({ external_user_id: ext })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422, 422]);
  });
});
