import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/db/client";
import { accessTokens } from "../../src/db/schema";
import { MAX_LIVE_ACCESS_TOKENS_PER_ACCOUNT } from "../../src/schemas/limits";
import { createAccount, newPartner, type Partner } from "../support/api";
import { rawCall } from "../support/raw-call";
import { insertLiveTokens, jtiOf, revokedInGate, tokenRequestsFrom } from "../support/tokens";
import { api } from "../support/typed-api";

/**
 * docs/architecture.md "Tokens", docs/security.md "Controls": a client is never locked out by the live-token
 * cap (the oldest live token is retired instead), a refresh grant retires the access token issued
 * with the refresh token it spends, tokens are verified on their canonical encoding only, and
 * X-Request-Id is always the service's own.
 */

const MAX = MAX_LIVE_ACCESS_TOKENS_PER_ACCOUNT;
const HOUR = 3_600_000;
const db = () => openDb(env.DB);

const tokenRequest = tokenRequestsFrom("198.18.0.");

const liveJtis = async (accountId: string) =>
  (await db().select().from(accessTokens).where(eq(accessTokens.accountId, accountId)).all()).filter((r) => r.expiresAt > Date.now()).map((r) => r.jti);

let p: Partner;
beforeAll(async () => {
  p = await newPartner("Token housekeeping");
});

describe(`beyond ${MAX} live access tokens the oldest is retired, never the new one refused`, () => {
  it("client credentials at the cap: 200, the account's oldest live token revoked in its gate (401), the count stays at the cap", async () => {
    const account = await createAccount(p);
    const oldest = await tokenRequest(p, { grant_type: "client_credentials", scope: account.external_user_id });
    expect(oldest.status).toBe(200);
    // 99 younger live tokens (later expiry): the real one above is the oldest of 100
    await insertLiveTokens(account.id, MAX - 1, Date.now() + 2 * HOUR);
    expect((await api("GET", "/v0/accounts/current", { token: oldest.body.access_token })).status).toBe(200);

    const next = await tokenRequest(p, { grant_type: "client_credentials", scope: account.external_user_id });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect((await api("GET", "/v0/accounts/current", { token: next.body.access_token })).status).toBe(200);
    expect((await api("GET", "/v0/accounts/current", { token: oldest.body.access_token })).status).toBe(401);
    expect(await revokedInGate(await jtiOf(oldest.body.access_token))).toBe(true);
    const live = await liveJtis(account.id);
    expect(live).toHaveLength(MAX);
    expect(live).not.toContain(await jtiOf(oldest.body.access_token));
    expect(live).toContain(await jtiOf(next.body.access_token));
  });

  it("many requests beyond the cap each succeed; the live count never ends above the cap", async () => {
    const account = await createAccount(p);
    await insertLiveTokens(account.id, MAX, Date.now() + HOUR);
    for (let i = 0; i < 5; i++) {
      const res = await tokenRequest(p, { grant_type: "client_credentials", scope: account.external_user_id });
      expect(res.status).toBe(200);
    }
    expect(await liveJtis(account.id)).toHaveLength(MAX);
  });
});

describe("a refresh grant retires the access token issued with the refresh token it spends", () => {
  it("the old access token gets 401 once its refresh token is spent; the new pair works", async () => {
    const account = await createAccount(p);
    const first = await tokenRequest(p, { grant_type: "client_credentials", scope: account.external_user_id });
    expect(first.status).toBe(200);
    const refreshed = await tokenRequest(p, { grant_type: "refresh_token", refresh_token: first.body.refresh_token });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect((await api("GET", "/v0/accounts/current", { token: first.body.access_token })).status).toBe(401);
    expect((await api("GET", "/v0/accounts/current", { token: refreshed.body.access_token })).status).toBe(200);
    expect(await liveJtis(account.id)).toEqual([await jtiOf(refreshed.body.access_token)]);
    // and a refresh at the cap is never refused
    await insertLiveTokens(account.id, MAX, Date.now() + HOUR);
    const again = await tokenRequest(p, { grant_type: "refresh_token", refresh_token: refreshed.body.refresh_token });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect((await api("GET", "/v0/accounts/current", { token: refreshed.body.access_token })).status).toBe(401);
    expect(await liveJtis(account.id)).toHaveLength(MAX);
  });

  it("the token endpoint documents the cap and the retirement in the OpenAPI document", async () => {
    const doc = (await rawCall("GET", "/v0/openapi.json")).body;
    const op = doc.paths["/v0/oauth/token"].post;
    const text = `${op.summary ?? ""} ${op.description ?? ""}`;
    expect(text).toContain(`${MAX} live access tokens`);
    expect(text).toMatch(/oldest/i);
    expect(text).toMatch(/refresh/i);
  });
});

describe("tokens are verified on their canonical encoding only", () => {
  /** The same bytes under another base64url spelling: the unused low bits of the last character set. */
  function respell(part: string): string[] {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const unused = { 2: 4, 3: 2 }[(part.length % 4) as 2 | 3] ?? 0; // 2 chars carry 1 byte (4 spare bits), 3 carry 2 (2 spare bits)
    const last = alphabet.indexOf(part.at(-1)!);
    return Array.from({ length: (1 << unused) - 1 }, (_, i) => part.slice(0, -1) + alphabet[last + i + 1]!).filter((s) => s !== part);
  }

  it("a signature with other trailing bits (same bytes) is 401; the canonical token works", async () => {
    const token = p.adminToken;
    expect((await api("GET", "/v0/accounts/current", { token })).status).toBe(200);
    const [prefix, body, sig] = token.split(".") as [string, string, string];
    const variants = respell(sig);
    expect(variants.length).toBeGreaterThan(0);
    for (const variant of variants) {
      const res = await api("GET", "/v0/accounts/current", { token: `${prefix}.${body}.${variant}` });
      expect(res.status, variant).toBe(401);
    }
    for (const variant of [`${prefix}.${body}.${sig}=`, `${prefix}.${body}.${sig}==`, `${prefix}.${body}=.${sig}`, `PW1.${body}.${sig}`]) {
      expect((await api("GET", "/v0/accounts/current", { token: variant })).status, variant).toBe(401);
    }
  });
});

describe("X-Request-Id is the service's own", () => {
  it("a client's X-Request-Id is not echoed or adopted; Request-Label is the client's correlation value", async () => {
    const seen = new Set<string>();
    for (const clientValue of ["client-chosen-id", "00000000-0000-4000-8000-000000000000", "attacker\u0085injected"]) {
      const res = await api("GET", "/v0/accounts/current", { token: p.adminToken, headers: { "X-Request-Id": clientValue, "Request-Label": "mine-1" } });
      const id = res.headers.get("x-request-id") ?? "";
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(id).not.toBe(clientValue);
      seen.add(id);
      expect(res.headers.get("request-label")).toBe("mine-1");
    }
    expect(seen.size).toBe(3);
  });
});
