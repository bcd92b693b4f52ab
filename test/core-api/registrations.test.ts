import { beforeAll, describe, expect, it } from "vitest";
import { createAccount, createInstance, type Json, newPartner, type Partner, register } from "../support/api";
import { rawCall } from "../support/raw-call";
import { api } from "../support/typed-api";
import { expectErrorBody, expectValidation } from "./fixture";

let p: Partner;
let other: Partner;
let li: Json;
beforeAll(async () => {
  [p, other] = await Promise.all([newPartner("Registrations A"), newPartner("Registrations B")]);
  li = await createInstance(p);
});

// untyped on purpose: the validation tests send wrong bodies
const post = (body: unknown, token = p.adminToken) => rawCall("POST", "/v0/registrations", { token, body });
const regsOf = async (liId: string) =>
  (await api("GET", "/v0/learning-instances/{li_id}/registrations", { token: p.adminToken, path: { li_id: liId } })).body as Json[];

describe("POST /v0/registrations", () => {
  it("creates learner and instructor registrations: 201 with the registration", async () => {
    const [a1, a2] = await Promise.all([createAccount(p), createAccount(p)]);
    for (const [acct, type] of [
      [a1, "learner"],
      [a2, "instructor"],
    ] as const) {
      const res = await post({ account_id: acct.id, learning_instance_id: li.id, type });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), account_id: acct.id, learning_instance_id: li.id, type });
      expect((await api("GET", "/v0/registrations/{reg_id}", { token: p.adminToken, path: { reg_id: res.body.id } })).body).toEqual(res.body);
    }
  });

  it("an instructor of the instance may register learners, but not instructors", async () => {
    const instructor = await createAccount(p);
    await register(p, instructor.id, li.id, "instructor");
    const token = await p.tokenFor(instructor.external_user_id);
    const [l, i] = await Promise.all([createAccount(p), createAccount(p)]);
    expect((await post({ account_id: l.id, learning_instance_id: li.id, type: "learner" }, token)).status).toBe(201);
    expectErrorBody(await post({ account_id: i.id, learning_instance_id: li.id, type: "instructor" }, token), 403);
    expect((await regsOf(li.id)).map((r) => r.account_id)).not.toContain(i.id);
  });

  it("an instructor of one instance has no rights in another instance", async () => {
    const li2 = await createInstance(p);
    const [instructor, learner, l2] = await Promise.all([createAccount(p), createAccount(p), createAccount(p)]);
    await register(p, instructor.id, li.id, "instructor");
    const reg2 = await register(p, l2.id, li2.id, "learner");
    const token = await p.tokenFor(instructor.external_user_id);
    expectErrorBody(await post({ account_id: learner.id, learning_instance_id: li2.id, type: "learner" }, token), 403);
    expectErrorBody(await api("GET", "/v0/registrations/{reg_id}", { token, path: { reg_id: reg2.id } }), 403);
    expectErrorBody(await api("DELETE", "/v0/registrations/{reg_id}", { token, path: { reg_id: reg2.id } }), 403);
    expectErrorBody(await api("GET", "/v0/learning-instances/{li_id}/registrations", { token, path: { li_id: li2.id } }), 403);
    expect((await api("GET", "/v0/registrations/{reg_id}", { token: p.adminToken, path: { reg_id: reg2.id } })).status).toBe(200);
  });

  it("the same account twice in one instance is 422 (also as the other type)", async () => {
    const acct = await createAccount(p);
    await register(p, acct.id, li.id, "learner");
    expectErrorBody(await post({ account_id: acct.id, learning_instance_id: li.id, type: "learner" }), 422);
    expectErrorBody(await post({ account_id: acct.id, learning_instance_id: li.id, type: "instructor" }), 422);
    expect((await regsOf(li.id)).filter((r) => r.account_id === acct.id)).toHaveLength(1);
  });

  it("an unknown account, another partner's account, or a disabled account is 422 naming body.account_id", async () => {
    const foreign = await createAccount(other);
    const disabled = await createAccount(p);
    expect((await api("DELETE", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: disabled.id } })).status).toBe(204);
    for (const accountId of [crypto.randomUUID(), foreign.id, disabled.id]) {
      const res = await post({ account_id: accountId, learning_instance_id: li.id, type: "learner" });
      expectErrorBody(res, 422);
      expect(res.body.details?.[0]?.path).toBe("body.account_id");
    }
    expect((await regsOf(li.id)).map((r) => r.account_id)).not.toEqual(expect.arrayContaining([foreign.id]));
  });

  it("an unknown or foreign learning instance is 404", async () => {
    const acct = await createAccount(p);
    const foreignLi = await createInstance(other);
    expectErrorBody(await post({ account_id: acct.id, learning_instance_id: crypto.randomUUID(), type: "learner" }), 404);
    expectErrorBody(await post({ account_id: acct.id, learning_instance_id: foreignLi.id, type: "learner" }), 404);
  });

  it("malformed input is 400 with details", async () => {
    const acct = await createAccount(p);
    const ok = { account_id: acct.id, learning_instance_id: li.id, type: "learner" };
    expectValidation(await post({ ...ok, type: "teacher" }), "body.type");
    expectValidation(await post({ ...ok, type: undefined }), "body.type");
    expectValidation(await post({ ...ok, account_id: "acct-1" }), "body.account_id");
    expectValidation(await post({ ...ok, learning_instance_id: 12 }), "body.learning_instance_id");
    expectValidation(await post({}), "body.account_id");
    expectErrorBody(await post([ok]), 400);
    expectErrorBody(
      await rawCall("POST", "/v0/registrations", {
        token: p.adminToken,
        raw: JSON.stringify(ok).slice(0, -1),
        headers: { "Content-Type": "application/json" },
      }),
      400,
    );
    expect((await regsOf(li.id)).map((r) => r.account_id)).not.toContain(acct.id);
  });
});

describe("GET and DELETE /v0/registrations/{reg_id}", () => {
  it("DELETE: 204 without body, then 404; the account may register again; its token loses the instance", async () => {
    const acct = await createAccount(p);
    const token = await p.tokenFor(acct.external_user_id);
    const reg = await register(p, acct.id, li.id, "learner");
    expect((await api("GET", "/v0/learning-instances/{id}", { token, path: { id: li.id } })).status).toBe(200);
    const del = await api("DELETE", "/v0/registrations/{reg_id}", { token: p.adminToken, path: { reg_id: reg.id } });
    expect(del.status).toBe(204);
    expect(del.body).toBeNull();
    expectErrorBody(await api("GET", "/v0/registrations/{reg_id}", { token: p.adminToken, path: { reg_id: reg.id } }), 404);
    expectErrorBody(await api("DELETE", "/v0/registrations/{reg_id}", { token: p.adminToken, path: { reg_id: reg.id } }), 404);
    expectErrorBody(await api("GET", "/v0/learning-instances/{id}", { token, path: { id: li.id } }), 403);
    const again = await register(p, acct.id, li.id, "learner");
    expect(again.id).not.toBe(reg.id);
  });

  it("an instructor's registration deleted: the instructor loses its rights at once", async () => {
    const [instructor, learner] = await Promise.all([createAccount(p), createAccount(p)]);
    const iReg = await register(p, instructor.id, li.id, "instructor");
    const lReg = await register(p, learner.id, li.id, "learner");
    const token = await p.tokenFor(instructor.external_user_id);
    expect((await api("GET", "/v0/registrations/{reg_id}", { token, path: { reg_id: lReg.id } })).status).toBe(200);
    await api("DELETE", "/v0/registrations/{reg_id}", { token: p.adminToken, path: { reg_id: iReg.id } });
    expectErrorBody(await api("GET", "/v0/registrations/{reg_id}", { token, path: { reg_id: lReg.id } }), 403);
  });

  it("malformed and unknown ids", async () => {
    for (const method of ["GET", "DELETE"]) {
      expectValidation(await rawCall(method, "/v0/registrations/reg-1", { token: p.adminToken }), "path.reg_id");
      expectErrorBody(await rawCall(method, `/v0/registrations/${crypto.randomUUID()}`, { token: p.adminToken }), 404);
    }
  });
});

describe("concurrency", () => {
  it("the same account registered in parallel: exactly one 201, the rest 422", async () => {
    const acct = await createAccount(p);
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => post({ account_id: acct.id, learning_instance_id: li.id, type: i % 2 ? "learner" : "instructor" })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422]);
  });
});
