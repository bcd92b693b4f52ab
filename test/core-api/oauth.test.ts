import { env } from "cloudflare:test";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { signAccessToken, type TokenClaims } from "../../src/auth/access-token";
import { createAccount, newPartner, type Partner, uniqueId } from "../support/api";
import { type ApiResponse, rawCall } from "../support/raw-call";
import { api } from "../support/typed-api";
import { expectErrorBody } from "./fixture";

const TOKEN = "/v0/oauth/token";

// The token endpoint is IP-limited (spec 8.1.1): each test speaks from its own client address so the
// many token requests of this file stay under the per-IP window.
let ipCounter = 0;
let ip = "203.0.113.1";
beforeEach(() => {
  ip = `203.0.113.${++ipCounter}`;
});

function tokenRequest(clientId: string, secret: string, form: Record<string, string>): Promise<ApiResponse> {
  return rawCall("POST", TOKEN, {
    raw: new URLSearchParams(form).toString(),
    headers: { Authorization: `Basic ${btoa(`${clientId}:${secret}`)}`, "Content-Type": "application/x-www-form-urlencoded", "CF-Connecting-IP": ip },
  });
}

function expectOAuthError(res: ApiResponse, status: 400 | 401, error: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error).toBe(error);
  expect(typeof res.body.error_description).toBe("string");
  expect(res.headers.get("cache-control")).toMatch(/no-store/);
  if (error === "invalid_client") expect(res.headers.get("www-authenticate") ?? "").toMatch(/^Basic/i);
}

function expect401(res: ApiResponse): void {
  expectErrorBody(res, 401);
  expect(res.headers.get("www-authenticate") ?? "").toMatch(/^Bearer/i);
}

let p: Partner;
let other: Partner;
beforeAll(async () => {
  [p, other] = await Promise.all([newPartner("OAuth A"), newPartner("OAuth B")]);
});

const grant = (scope: string) => tokenRequest(p.client_id, p.client_secret, { grant_type: "client_credentials", scope });

describe("client credentials grant", () => {
  it("admin scope gives an admin token with the spec 5.4 fields", async () => {
    const res = await grant(p.admin_external_user_id);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toMatch(/no-store/);
    expect(res.body).toMatchObject({
      access_token: expect.any(String),
      token_type: "Bearer",
      expires_in: 3600,
      refresh_token: expect.any(String),
      scope: p.admin_external_user_id,
      account_id: p.admin_account_id,
    });
    const expiresAt = Date.parse(res.body.expires_at);
    expect(res.body.expires_at).toMatch(/Z$/);
    expect(Math.abs(expiresAt - (Date.now() + 3600_000))).toBeLessThan(60_000);
    const me = await api("GET", "/v0/accounts/current", { token: res.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(p.admin_account_id);
    // admin scope reaches admin-only endpoints
    expect((await api("POST", "/v0/accounts", { token: res.body.access_token, body: { external_user_id: uniqueId() } })).status).toBe(201);
  });

  it("an end user's scope gives a token acting as that user: owner/instructor rules only", async () => {
    const account = await createAccount(p);
    const res = await grant(account.external_user_id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ scope: account.external_user_id, account_id: account.id });
    const token = res.body.access_token;
    const me = await api("GET", "/v0/accounts/current", { token });
    expect(me.body).toEqual({ id: account.id, external_user_id: account.external_user_id });
    expect((await api("GET", "/v0/accounts/{account_id}", { token, path: { account_id: account.id } })).status).toBe(200);
    expectErrorBody(await api("POST", "/v0/accounts", { token, body: { external_user_id: uniqueId() } }), 403);
    expectErrorBody(await api("GET", "/v0/accounts/{account_id}", { token, path: { account_id: p.admin_account_id } }), 403);
  });

  it("Basic credentials may be percent-encoded (RFC 6749 2.3.1)", async () => {
    const basic = btoa(`${encodeURIComponent(p.client_id)}:${encodeURIComponent(p.client_secret)}`);
    const res = await rawCall("POST", TOKEN, {
      raw: new URLSearchParams({ grant_type: "client_credentials", scope: p.admin_external_user_id }).toString(),
      headers: { Authorization: `Basic ${basic}`, "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(200);
  });
});

describe("token endpoint errors (RFC 6749 5.2)", () => {
  const form = () => new URLSearchParams({ grant_type: "client_credentials", scope: p.admin_external_user_id }).toString();

  it("invalid_client 401 with WWW-Authenticate: no credentials, wrong secret, unknown client, other scheme", async () => {
    expectOAuthError(await rawCall("POST", TOKEN, { raw: form(), headers: { "Content-Type": "application/x-www-form-urlencoded" } }), 401, "invalid_client");
    expectOAuthError(
      await tokenRequest(p.client_id, "wrong-secret", { grant_type: "client_credentials", scope: p.admin_external_user_id }),
      401,
      "invalid_client",
    );
    expectOAuthError(
      await tokenRequest(p.client_id, other.client_secret, { grant_type: "client_credentials", scope: p.admin_external_user_id }),
      401,
      "invalid_client",
    );
    expectOAuthError(
      await tokenRequest("pw_nobody", p.client_secret, { grant_type: "client_credentials", scope: p.admin_external_user_id }),
      401,
      "invalid_client",
    );
    expectOAuthError(
      await rawCall("POST", TOKEN, { raw: form(), headers: { Authorization: `Bearer ${p.adminToken}`, "Content-Type": "application/x-www-form-urlencoded" } }),
      401,
      "invalid_client",
    );
    expectOAuthError(await tokenRequest("%zz", "%", { grant_type: "client_credentials", scope: p.admin_external_user_id }), 401, "invalid_client");
    expectOAuthError(
      await rawCall("POST", TOKEN, { raw: form(), headers: { Authorization: "Basic a", "Content-Type": "application/x-www-form-urlencoded" } }),
      401,
      "invalid_client",
    );
    expectOAuthError(
      await rawCall("POST", TOKEN, { raw: form(), headers: { Authorization: "Basic !!!not-base64", "Content-Type": "application/x-www-form-urlencoded" } }),
      401,
      "invalid_client",
    );
  });

  it("invalid_request: missing grant_type, missing scope, missing refresh_token, JSON body", async () => {
    expectOAuthError(await tokenRequest(p.client_id, p.client_secret, { scope: p.admin_external_user_id }), 400, "invalid_request");
    expectOAuthError(await tokenRequest(p.client_id, p.client_secret, { grant_type: "client_credentials" }), 400, "invalid_request");
    expectOAuthError(await tokenRequest(p.client_id, p.client_secret, { grant_type: "refresh_token" }), 400, "invalid_request");
    const json = await rawCall("POST", TOKEN, {
      body: { grant_type: "client_credentials", scope: p.admin_external_user_id },
      headers: { Authorization: `Basic ${btoa(`${p.client_id}:${p.client_secret}`)}` },
    });
    expectOAuthError(json, 400, "invalid_request");
  });

  it("unsupported_grant_type", async () => {
    expectOAuthError(
      await tokenRequest(p.client_id, p.client_secret, { grant_type: "password", scope: p.admin_external_user_id }),
      400,
      "unsupported_grant_type",
    );
    expectOAuthError(await tokenRequest(p.client_id, p.client_secret, { grant_type: "authorization_code", code: "x" }), 400, "unsupported_grant_type");
  });

  it("invalid_scope: unknown external_user_id, another partner's account", async () => {
    expectOAuthError(await grant("nobody-here"), 400, "invalid_scope");
    const foreign = await createAccount(other);
    expectOAuthError(await grant(foreign.external_user_id), 400, "invalid_scope");
    expectOAuthError(await grant(other.admin_external_user_id), 400, "invalid_scope");
  });
});

describe("refresh_token grant", () => {
  it("rotates: a fresh pair, the used refresh token refused afterwards with invalid_grant", async () => {
    const first = await grant(p.admin_external_user_id);
    const refreshed = await tokenRequest(p.client_id, p.client_secret, { grant_type: "refresh_token", refresh_token: first.body.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toMatchObject({ token_type: "Bearer", scope: p.admin_external_user_id, account_id: p.admin_account_id });
    expect(refreshed.body.access_token).not.toBe(first.body.access_token);
    expect(refreshed.body.refresh_token).not.toBe(first.body.refresh_token);
    expect((await api("GET", "/v0/accounts/current", { token: refreshed.body.access_token })).status).toBe(200);

    const replay = await tokenRequest(p.client_id, p.client_secret, { grant_type: "refresh_token", refresh_token: first.body.refresh_token });
    expectOAuthError(replay, 400, "invalid_grant");
    // the new refresh token is still good
    const again = await tokenRequest(p.client_id, p.client_secret, { grant_type: "refresh_token", refresh_token: refreshed.body.refresh_token });
    expect(again.status).toBe(200);
  });

  it("a refresh token spent in parallel yields exactly one new pair", async () => {
    const first = await grant(p.admin_external_user_id);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => tokenRequest(p.client_id, p.client_secret, { grant_type: "refresh_token", refresh_token: first.body.refresh_token })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400]);
    for (const r of results.filter((r) => r.status === 400)) expect(r.body.error).toBe("invalid_grant");
  });

  it("an end user's refresh keeps the end-user scope", async () => {
    const account = await createAccount(p);
    const first = await grant(account.external_user_id);
    const refreshed = await tokenRequest(p.client_id, p.client_secret, { grant_type: "refresh_token", refresh_token: first.body.refresh_token });
    expect(refreshed.body).toMatchObject({ scope: account.external_user_id, account_id: account.id });
    expectErrorBody(await api("POST", "/v0/accounts", { token: refreshed.body.access_token, body: { external_user_id: uniqueId() } }), 403);
  });

  it("unknown refresh token, or one of another client, is invalid_grant (and is not spent by the attempt)", async () => {
    expectOAuthError(await tokenRequest(p.client_id, p.client_secret, { grant_type: "refresh_token", refresh_token: "not-a-token" }), 400, "invalid_grant");
    const first = await grant(p.admin_external_user_id);
    const stolen = await tokenRequest(other.client_id, other.client_secret, { grant_type: "refresh_token", refresh_token: first.body.refresh_token });
    expectOAuthError(stolen, 400, "invalid_grant");
    const owner = await tokenRequest(p.client_id, p.client_secret, { grant_type: "refresh_token", refresh_token: first.body.refresh_token });
    expect(owner.status).toBe(200);
  });

  it("an access token is not a refresh token", async () => {
    const first = await grant(p.admin_external_user_id);
    expectOAuthError(
      await tokenRequest(p.client_id, p.client_secret, { grant_type: "refresh_token", refresh_token: first.body.access_token }),
      400,
      "invalid_grant",
    );
  });
});

describe("bearer tokens on the API", () => {
  const claimsFor = (partner: Partner, exp: number, admin = true): TokenClaims => ({
    jti: crypto.randomUUID(),
    partner_id: partner.partner_id,
    account_id: partner.admin_account_id,
    admin,
    exp,
  });
  const now = () => Math.floor(Date.now() / 1000);

  it("a token signed with the service key and a future exp is accepted (so the next cases test expiry and key alone)", async () => {
    const token = await signAccessToken(claimsFor(p, now() + 600), env.TOKEN_SIGNING_KEY);
    const res = await api("GET", "/v0/accounts/current", { token });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(p.admin_account_id);
  });

  it("an expired token gets 401 with WWW-Authenticate: Bearer", async () => {
    for (const exp of [now() - 1, now() - 3600, 0]) {
      const token = await signAccessToken(claimsFor(p, exp), env.TOKEN_SIGNING_KEY);
      const res = await api("GET", "/v0/accounts/current", { token });
      expect401(res);
      expect(res.error.message).toMatch(/expired/i);
    }
  });

  it("a token signed with the wrong key gets 401", async () => {
    const token = await signAccessToken(claimsFor(p, now() + 600), "another-key-0123456789abcdef0123456789abcdef");
    expect401(await api("GET", "/v0/accounts/current", { token }));
  });

  it("a tampered token (claims edited, signature kept) gets 401", async () => {
    const token = await signAccessToken(claimsFor(p, now() + 600, false), env.TOKEN_SIGNING_KEY);
    const [prefix, body, sig] = token.split(".") as [string, string, string];
    const claims = JSON.parse(atob(body.replace(/-/g, "+").replace(/_/g, "/")));
    claims.admin = true;
    const forged = btoa(JSON.stringify(claims)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    expect401(await api("POST", "/v0/accounts", { token: `${prefix}.${forged}.${sig}`, body: { external_user_id: uniqueId() } }));
  });

  it("missing, malformed and unknown-scheme Authorization headers get 401 on every kind of endpoint", async () => {
    const headersList: Record<string, string>[] = [
      {},
      { Authorization: "Bearer" },
      { Authorization: "Bearer not-a-token" },
      { Authorization: "Bearer pw1.!!!.???" },
      { Authorization: "Bearer pw1.e30.e30" },
      { Authorization: "Bearer pw1.a.a" },
      { Authorization: "Bearer pw1.abcde.x" },
      { Authorization: "Bearer pw1.bm90IGpzb24.e30" },
      { Authorization: `Basic ${btoa(`${p.client_id}:${p.client_secret}`)}` },
      { Authorization: `Token ${p.adminToken}` },
    ];
    for (const headers of headersList) {
      expect401(await api("GET", "/v0/accounts/current", { headers }));
      expect401(await api("POST", "/v0/accounts", { headers, body: { external_user_id: uniqueId() } }));
      expect401(await api("DELETE", "/v0/learning-instances/{id}", { headers, path: { id: crypto.randomUUID() } }));
    }
  });

  it("authentication comes before validation: a bad body without a token is 401, not 400", async () => {
    expect401(await rawCall("POST", "/v0/accounts", { raw: "{not json", headers: { "Content-Type": "application/json" } }));
    expect401(await api("GET", "/v0/accounts/{account_id}", { path: { account_id: "not-a-uuid" } }));
  });
});

describe("disabled accounts", () => {
  it("existing token 401 at once, refresh invalid_grant, new token invalid_scope, external_user_id not reusable", async () => {
    const account = await createAccount(p);
    const [t1, t2] = await Promise.all([grant(account.external_user_id), grant(account.external_user_id)]);
    expect((await api("GET", "/v0/accounts/current", { token: t1.body.access_token })).status).toBe(200);

    const del = await api("DELETE", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: account.id } });
    expect(del.status).toBe(204);

    for (const t of [t1, t2]) {
      expect401(await api("GET", "/v0/accounts/current", { token: t.body.access_token }));
      expect401(await api("GET", "/v0/accounts/{account_id}", { token: t.body.access_token, path: { account_id: account.id } }));
    }
    expectOAuthError(
      await tokenRequest(p.client_id, p.client_secret, { grant_type: "refresh_token", refresh_token: t1.body.refresh_token }),
      400,
      "invalid_grant",
    );
    expectOAuthError(await grant(account.external_user_id), 400, "invalid_scope");

    const reuse = await api("POST", "/v0/accounts", { token: p.adminToken, body: { external_user_id: account.external_user_id } });
    expectErrorBody(reuse, 422);
    const batch = await api("POST", "/v0/batch", {
      token: p.adminToken,
      body: { requests: [{ method: "post", relative_url: "/accounts", body: { external_user_id: account.external_user_id } }] },
    });
    expect(batch.status).toBe(200);
    expect(batch.body.responses[0]).toMatchObject({ code: 422, body: { code: 422, error_message: expect.any(String) } });
  });

  it("the admin's own token keeps working and disabling does not touch other accounts' tokens", async () => {
    const [a1, a2] = await Promise.all([createAccount(p), createAccount(p)]);
    const t2 = await p.tokenFor(a2.external_user_id);
    expect((await api("DELETE", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: a1.id } })).status).toBe(204);
    expect((await api("GET", "/v0/accounts/current", { token: t2 })).status).toBe(200);
    expect((await api("GET", "/v0/accounts/current", { token: p.adminToken })).status).toBe(200);
  });
});
