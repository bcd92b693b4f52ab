import { beforeAll, describe, expect, it } from "vitest";
import { createAccount, createInstance, freshAdminToken, newPartner, type Partner, register } from "../support/api";
import { fetchWith } from "../support/app";
import { api } from "../support/typed-api";

/** The operator diagnostics (docs/security.md): off unless OPERATOR_TOKEN is set, then only for that token. */

const OPERATOR_TOKEN = "operator-token-0123456789abcdef0123456789";
let p: Partner;
let regId: string;
beforeAll(async () => {
  p = await newPartner("Operator");
  const li = await createInstance(p);
  regId = (await register(p, (await createAccount(p)).id, li.id, "learner")).id;
  const token = await freshAdminToken(p);
  const t = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
  const res = await api("POST", "/v0/registrations/{id}/batch-events", {
    token,
    body: {
      events: [
        { type: "graded-events", module_id: "mref-a1", interaction_end_time: t(1), is_correct: true, duration: 1 },
        { type: "ungraded-events", module_id: "mref-a3", interaction_end_time: t(2), duration: 2 },
        { type: "graded-events", module_id: "mref-b1", interaction_end_time: t(3), is_correct: false, duration: 3 },
      ],
    },
    path: { id: regId },
  });
  expect(res.status).toBe(204);
});

const audit = (overrides: Record<string, string>, query = "", auth = `Bearer ${OPERATOR_TOKEN}`) =>
  fetchWith(overrides, `/ops/registrations/${regId}/audit${query}`, { headers: { Authorization: auth, "CF-Connecting-IP": "198.51.100.200" } });

describe("GET /ops/registrations/{id}/audit", () => {
  it("is a 404 like any unknown route when OPERATOR_TOKEN is unset, even with a partner admin token", async () => {
    expect((await audit({})).status).toBe(404);
    expect((await audit({}, "", `Bearer ${p.adminToken}`)).status).toBe(404);
  });

  it("refuses a missing or wrong token with 401", async () => {
    for (const auth of ["", `Bearer ${p.adminToken}`, `Bearer ${OPERATOR_TOKEN}x`, OPERATOR_TOKEN]) {
      expect((await audit({ OPERATOR_TOKEN }, "", auth)).status, auth).toBe(401);
    }
  });

  it("with the operator token: the stored events in order, paged, and whether the state equals the replay; no-store", async () => {
    const first = await audit({ OPERATOR_TOKEN }, "?limit=2");
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    const body = (await first.json()) as Record<string, any>;
    expect(body).toMatchObject({ registration_id: regId, event_count: 3, state_matches_replay: true, next_after: expect.any(Number) });
    expect(body.events.map((e: any) => e.body.duration)).toEqual([3, 2]); // time order: oldest first
    const second = (await (await audit({ OPERATOR_TOKEN }, `?after=${body.next_after}&limit=2`)).json()) as Record<string, any>;
    expect(second.events.map((e: any) => e.body.duration)).toEqual([1]);
    expect(second.next_after).toBeUndefined();
    expect(second.state_matches_replay).toBeUndefined();
    const unknown = await fetchWith({ OPERATOR_TOKEN }, `/ops/registrations/${crypto.randomUUID()}/audit`, {
      headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    expect(unknown.status).toBe(404);
    expect((await audit({ OPERATOR_TOKEN }, "?limit=0")).status).toBe(400);
  });
});
