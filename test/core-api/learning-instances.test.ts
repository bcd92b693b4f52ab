import { beforeAll, describe, expect, it } from "vitest";
import { createAccount, createInstance, type Json, newPartner, type Partner, register } from "../support/api";
import { rawCall } from "../support/raw-call";
import { api } from "../support/typed-api";
import { expectErrorBody, expectValidation } from "./fixture";

let p: Partner;
let other: Partner;
let graphId: string;
beforeAll(async () => {
  [p, other] = await Promise.all([newPartner("Instances A"), newPartner("Instances B")]);
  // the helper makes sure the partner's demo graph exists; direct POSTs below reuse its graph_id
  graphId = (await createInstance(p)).graph_id;
});

// untyped on purpose: the validation tests send wrong bodies
const post = (body: unknown) => rawCall("POST", "/v0/learning-instances", { token: p.adminToken, body });
const put = (id: string, body: unknown) => rawCall("PUT", `/v0/learning-instances/${id}`, { token: p.adminToken, body });
const get = (id: string) => api("GET", "/v0/learning-instances/{id}", { token: p.adminToken, path: { id } });

describe("POST /v0/learning-instances", () => {
  it("creates: 201, in_progress true, dates returned as UTC with Z", async () => {
    const res = await post({ graph_id: graphId, name: "Algebra, fall", start_date: "2026-09-01T08:00:00+02:00", end_date: "2026-12-20T00:00:00Z" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      graph_id: graphId,
      name: "Algebra, fall",
      start_date: "2026-09-01T06:00:00.000Z",
      end_date: "2026-12-20T00:00:00.000Z",
      in_progress: true,
    });
    expect((await get(res.body.id)).body).toEqual(res.body);
  });

  it("a name containing an e-mail address is 422 and creates nothing", async () => {
    const name = `Course of teacher@school.example ${crypto.randomUUID()}`;
    const res = await post({ graph_id: graphId, name });
    expectErrorBody(res, 422);
    expect(res.body.details?.[0]?.path).toBe("body.name");
    const list = await api("GET", "/v0/learning-instances", { token: p.adminToken, query: { limit: 500 } });
    expect((list.body as Json[]).map((li) => li.name)).not.toContain(name);
  });

  it("an e-mail address written with look-alike @ or . (full-width, small, ideographic) is 422 too", async () => {
    for (const name of ["jsmith\uFF20school.org", "jsmith\uFE6Bschool\uFE52org", "jsmith@school\uFF0Eorg", "jsmith\uFF20school\u3002org"]) {
      const res = await post({ graph_id: graphId, name });
      expectErrorBody(res, 422);
      expect(res.body.details).toEqual([{ path: "body.name", message: "contains an e-mail address" }]);
    }
  });

  it("end_date before start_date is 422", async () => {
    expectErrorBody(await post({ graph_id: graphId, name: "Backwards", start_date: "2026-09-02T00:00:00Z", end_date: "2026-09-01T00:00:00Z" }), 422);
  });

  it("malformed input is 400 with details", async () => {
    expectValidation(await post({ name: "No graph" }), "body.graph_id");
    expectValidation(await post({ graph_id: graphId }), "body.name");
    expectValidation(await post({ graph_id: graphId, name: 12 }), "body.name");
    expectValidation(await post({ graph_id: graphId, name: "   " }), "body.name");
    expectValidation(await post({ graph_id: "algebra", name: "Bad graph ref" }), "body.graph_id");
    expectValidation(await post({ graph_id: 7, name: "Bad graph ref" }), "body.graph_id");
    expectValidation(await post({ graph_id: graphId, name: "x", start_date: "yesterday" }), "body.start_date");
    expectValidation(await post({ graph_id: graphId, name: "x", end_date: 1767225600 }), "body.end_date");
    expectErrorBody(await post(null), 400);
    expectErrorBody(await rawCall("POST", "/v0/learning-instances", { token: p.adminToken, raw: "{", headers: { "Content-Type": "application/json" } }), 400);
  });
});

describe("GET /v0/learning-instances (list)", () => {
  it("is a bare array of the partner's own instances, paged by offset/limit", async () => {
    const mine = [await createInstance(p), await createInstance(p), await createInstance(p)];
    const theirs = await createInstance(other);
    const all = await api("GET", "/v0/learning-instances", { token: p.adminToken, query: { limit: 500 } });
    expect(all.status).toBe(200);
    expect(Array.isArray(all.body)).toBe(true);
    const ids = (all.body as Json[]).map((li) => li.id);
    for (const li of mine) expect(ids).toContain(li.id);
    expect(ids).not.toContain(theirs.id);
    // creation order, and offset/limit pages through it
    const idx = ids.indexOf(mine[0]!.id);
    expect(ids.slice(idx, idx + 3)).toEqual(mine.map((li) => li.id));
    const page = await api("GET", "/v0/learning-instances", { token: p.adminToken, query: { offset: idx + 1, limit: 1 } });
    expect((page.body as Json[]).map((li) => li.id)).toEqual([mine[1]!.id]);
  });

  it("bad paging is 400 with details", async () => {
    const token = await p.tokenFor(p.admin_external_user_id); // GET /v0/learning-instances is limited to 15/min per token
    expectValidation(await api("GET", "/v0/learning-instances", { token, query: { limit: 0 } }), "query.limit");
    expectValidation(await api("GET", "/v0/learning-instances", { token, query: { limit: 501 } }), "query.limit");
    expectValidation(await rawCall("GET", "/v0/learning-instances?limit=ten", { token }), "query.limit");
    expectValidation(await rawCall("GET", "/v0/learning-instances?offset=-1", { token }), "query.offset");
  });
});

describe("PUT /v0/learning-instances/{id}", () => {
  it("updates name and dates; unspecified fields are kept; graph_id may repeat unchanged", async () => {
    const li = await createInstance(p, { graph_id: graphId, name: "Before", start_date: "2026-01-01T00:00:00Z" });
    const res = await put(li.id, { name: "After", graph_id: li.graph_id, end_date: "2026-02-01T00:00:00Z" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ ...li, name: "After", end_date: "2026-02-01T00:00:00.000Z" });
    expect((await get(li.id)).body).toEqual(res.body);
  });

  it("changing graph_id or an e-mail in the name is 422 and changes nothing", async () => {
    const li = await createInstance(p);
    const other = await put(li.id, { graph_id: "gref-something-else", name: "Renamed" });
    expectErrorBody(other, 422);
    expect(other.body.details?.[0]?.path).toBe("body.graph_id");
    const email = await put(li.id, { name: "contact me: a.b@c.de" });
    expectErrorBody(email, 422);
    expectErrorBody(await put(li.id, { start_date: "2030-01-01T00:00:00Z", end_date: "2029-01-01T00:00:00Z" }), 422);
    expect((await get(li.id)).body).toEqual(li);
  });

  it("malformed input is 400 with details", async () => {
    const li = await createInstance(p);
    expectValidation(await put("nope", { name: "x" }), "path.id");
    expectValidation(await put(li.id, { name: 5 }), "body.name");
    expectValidation(await put(li.id, { start_date: "2026-13-45" }), "body.start_date");
    expectErrorBody(await put(li.id, [1, 2]), 400);
    expectErrorBody(
      await rawCall("PUT", `/v0/learning-instances/${li.id}`, { token: p.adminToken, raw: "name=x", headers: { "Content-Type": "application/json" } }),
      400,
    );
    expect((await get(li.id)).body).toEqual(li);
  });

  it("an unknown instance is 404", async () => {
    expectErrorBody(await put(crypto.randomUUID(), { name: "x" }), 404);
  });
});

describe("DELETE /v0/learning-instances/{id}", () => {
  it("204 without body; then the instance and its registrations are gone (404)", async () => {
    const li = await createInstance(p);
    const acct = await createAccount(p);
    const reg = await register(p, acct.id, li.id, "learner");
    const del = await api("DELETE", "/v0/learning-instances/{id}", { token: p.adminToken, path: { id: li.id } });
    expect(del.status).toBe(204);
    expect(del.body).toBeNull();
    expectErrorBody(await get(li.id), 404);
    expectErrorBody(await api("GET", "/v0/registrations/{reg_id}", { token: p.adminToken, path: { reg_id: reg.id } }), 404);
    expectErrorBody(await api("GET", "/v0/learning-instances/{li_id}/registrations", { token: p.adminToken, path: { li_id: li.id } }), 404);
    expectErrorBody(await api("DELETE", "/v0/learning-instances/{id}", { token: p.adminToken, path: { id: li.id } }), 404);
    const gone = await api("GET", "/v0/learning-instances", { token: p.adminToken, query: { limit: 500 } });
    expect((gone.body as Json[]).map((x) => x.id)).not.toContain(li.id);
  });

  it("non-UUID ids are 400 with details path.id on GET, PUT and DELETE", async () => {
    for (const method of ["GET", "DELETE"]) expectValidation(await rawCall(method, "/v0/learning-instances/123", { token: p.adminToken }), "path.id");
  });
});

describe("GET /v0/learning-instances/{li_id}/registrations", () => {
  it("bare array in creation order, filtered by type, paged", async () => {
    const li = await createInstance(p);
    const [a1, a2, a3] = await Promise.all([createAccount(p), createAccount(p), createAccount(p)]);
    const r1 = await register(p, a1.id, li.id, "learner");
    const r2 = await register(p, a2.id, li.id, "instructor");
    const r3 = await register(p, a3.id, li.id, "learner");
    const list = (q = "") => rawCall("GET", `/v0/learning-instances/${li.id}/registrations${q}`, { token: p.adminToken });
    expect((await list()).body).toEqual([r1, r2, r3]);
    expect((await list("?type=learner")).body).toEqual([r1, r3]);
    expect((await list("?type=instructor")).body).toEqual([r2]);
    expect((await list("?offset=1&limit=1")).body).toEqual([r2]);
  });

  it("malformed input is 400 with details", async () => {
    const li = await createInstance(p);
    expectValidation(await api("GET", "/v0/learning-instances/{li_id}/registrations", { token: p.adminToken, path: { li_id: "xyz" } }), "path.li_id");
    expectValidation(await rawCall("GET", `/v0/learning-instances/${li.id}/registrations?type=teacher`, { token: p.adminToken }), "query.type");
    expectValidation(
      await api("GET", "/v0/learning-instances/{li_id}/registrations", { token: p.adminToken, path: { li_id: li.id }, query: { limit: 1000 } }),
      "query.limit",
    );
  });

  it("an unknown instance is 404", async () => {
    expectErrorBody(await api("GET", "/v0/learning-instances/{li_id}/registrations", { token: p.adminToken, path: { li_id: crypto.randomUUID() } }), 404);
  });
});

describe("paging edge cases never fail the server", () => {
  it("huge, fractional and exotic offsets/limits are 200 or 400, never 500", async () => {
    const li = await createInstance(p);
    const token = await p.tokenFor(p.admin_external_user_id); // 16 GETs: more than one token's 15/min on the list
    for (const q of [
      "offset=100000000000000000000",
      "offset=9007199254740993",
      "offset=1e3",
      "limit=1.5",
      "offset=0x10",
      "limit=",
      "offset=%00",
      "limit=500&limit=0",
    ]) {
      for (const path of ["/v0/learning-instances", `/v0/learning-instances/${li.id}/registrations`]) {
        const res = await rawCall("GET", `${path}?${q}`, { token });
        expect([200, 400], `${path}?${q}: ${res.status} ${JSON.stringify(res.body)}`).toContain(res.status);
        if (res.status === 400) expectErrorBody(res, 400);
      }
    }
  });

  it("clearing a date with null on PUT", async () => {
    const li = await createInstance(p, { graph_id: graphId, name: "Dated", start_date: "2026-01-01T00:00:00Z", end_date: "2026-02-01T00:00:00Z" });
    const res = await put(li.id, { end_date: null });
    expect(res.status).toBe(200);
    expect(res.body.end_date).toBeUndefined();
    expect(res.body.start_date).toBe("2026-01-01T00:00:00.000Z");
  });
});
