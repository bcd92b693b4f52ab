import { describe, expect, it } from "vitest";
import { createAccount, createInstance, newPartner, register } from "./support/api";
import { rawCall } from "./support/raw-call";
import { api } from "./support/typed-api";

describe("smoke", () => {
  it("token, account, instance, registration", async () => {
    const p = await newPartner();
    const acct = await createAccount(p);
    const li = await createInstance(p);
    const reg = await register(p, acct.id, li.id, "learner");
    expect(reg.type).toBe("learner");
    const me = await api("GET", "/v0/accounts/current", { token: p.adminToken });
    expect(me.status).toBe(200);
    expect(me.body.entitlements).toContain("partner_admin");
    const doc = await rawCall("GET", "/v0/openapi.json");
    expect(doc.status, JSON.stringify(doc.body).slice(0, 500)).toBe(200);
  });
});
