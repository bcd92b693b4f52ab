import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { configFrom } from "../../src/config";
import { openDb } from "../../src/db/client";
import { accessTokens, accounts, refreshTokens } from "../../src/db/schema";
import type { Env } from "../../src/env";
import { disableAccount, findAccount, REVOKE_CONCURRENCY } from "../../src/services/accounts";
import { clientCredentialsGrant, OAuthError } from "../../src/services/oauth";
import { createAccount, newPartner, type Partner } from "../support/api";
import { interceptD1 } from "../support/d1-intercept";
import { insertLiveTokens, jtiOf, revokedInGate, tokenRequestsFrom } from "../support/tokens";
import { api } from "../support/typed-api";

/** Token bookkeeping: bounded revocation on disable, pruning, and the disable race at issuance. */

const db = () => openDb(env.DB);
const config = configFrom(env);
const HOUR = 3_600_000;

const tokenRequest = tokenRequestsFrom("198.51.100.");

const liveRows = (accountId: string) => db().select().from(accessTokens).where(eq(accessTokens.accountId, accountId)).all();
const refreshRows = (accountId: string) => db().select().from(refreshTokens).where(eq(refreshTokens.accountId, accountId)).all();

/** A stand-in for the TOKEN_GATE binding that records revocations and the most calls in flight at once. */
function fakeGates(failOnce = new Set<string>()) {
  let inFlight = 0;
  const stats = { maxInFlight: 0, revoked: new Set<string>() };
  const ns = {
    idFromName: (name: string) => name,
    get: (jti: string) => ({
      revoke: async () => {
        inFlight++;
        stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 1));
        inFlight--;
        if (failOnce.delete(jti)) throw new Error(`gate ${jti} unavailable`);
        stats.revoked.add(jti);
      },
    }),
  };
  return { env: { TOKEN_GATE: ns } as unknown as Env, stats };
}

let p: Partner;
beforeAll(async () => {
  p = await newPartner("Token bookkeeping");
});

describe("disabling an account with many live tokens", () => {
  it(`revokes at most ${REVOKE_CONCURRENCY} at a time, every one of them, and deletes their rows`, async () => {
    const account = await createAccount(p);
    const jtis = await insertLiveTokens(account.id, 260);
    const { env: fake, stats } = fakeGates();
    await disableAccount(fake, db(), (await findAccount(db(), account.id))!);
    expect(stats.maxInFlight).toBeGreaterThan(1);
    expect(stats.maxInFlight).toBeLessThanOrEqual(REVOKE_CONCURRENCY);
    expect([...stats.revoked].sort()).toEqual([...jtis].sort());
    expect(await liveRows(account.id)).toEqual([]);
    expect((await findAccount(db(), account.id))!.disabledAt).not.toBeNull();
  });

  it("a failed revocation leaves the account disabled and its unfinished rows; a retry finishes the job", async () => {
    const account = await createAccount(p);
    const jtis = await insertLiveTokens(account.id, 120);
    const failing = jtis[70]!; // in the second chunk
    const gates = fakeGates(new Set([failing]));
    await expect(disableAccount(gates.env, db(), (await findAccount(db(), account.id))!)).rejects.toThrow(/unavailable/);
    const disabled = (await findAccount(db(), account.id))!;
    expect(disabled.disabledAt).not.toBeNull();
    const left = (await liveRows(account.id)).map((r) => r.jti);
    expect(left).toContain(failing);
    expect(left.length).toBeLessThan(jtis.length); // the first chunk is done for good
    await disableAccount(gates.env, db(), disabled);
    expect(await liveRows(account.id)).toEqual([]);
    expect(gates.stats.revoked.has(failing)).toBe(true);
    expect(gates.stats.revoked.size).toBe(jtis.length);
  });

  it("through the API: DELETE revokes a real token and hundreds of recorded ones in their gates", async () => {
    const account = await createAccount(p);
    const issued = await tokenRequest(p, { grant_type: "client_credentials", scope: account.external_user_id });
    expect(issued.status).toBe(200);
    const token = issued.body.access_token as string;
    const extra = await insertLiveTokens(account.id, 2 * REVOKE_CONCURRENCY + 7);
    const res = await api("DELETE", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: account.id } });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect((await api("GET", "/v0/accounts/current", { token })).status).toBe(401);
    expect((await tokenRequest(p, { grant_type: "refresh_token", refresh_token: issued.body.refresh_token })).status).not.toBe(200);
    for (const jti of [await jtiOf(token), extra[0]!, extra.at(-1)!]) {
      expect(await revokedInGate(jti)).toBe(true);
    }
    expect(await liveRows(account.id)).toEqual([]);
    // a retried DELETE is harmless
    expect((await api("DELETE", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: account.id } })).status).toBe(204);
  });
});

// The live-token cap (the oldest live token retired, never a request refused) and the refresh grant's
// retirement of its access token: test/security/tokens.test.ts.

describe("issuance prunes the account's dead bookkeeping rows", () => {
  it("expired access tokens and used or expired refresh tokens of the account go; live rows and other accounts stay", async () => {
    const [account, bystander] = await Promise.all([createAccount(p), createAccount(p)]);
    const now = Date.now();
    const expired = await insertLiveTokens(account.id, 3, now - 1000);
    const live = await insertLiveTokens(account.id, 2, now + HOUR);
    const otherExpired = await insertLiveTokens(bystander.id, 2, now - 1000);
    const refresh = (accountId: string, tokenHash: string, expiresAt: number, usedAt: number | null) => ({
      tokenHash,
      partnerId: p.partner_id,
      accountId,
      expiresAt,
      usedAt,
    });
    await db()
      .insert(refreshTokens)
      .values([
        refresh(account.id, `used-${crypto.randomUUID()}`, now + HOUR, now - 5000),
        refresh(account.id, `expired-${crypto.randomUUID()}`, now - 1000, null),
        refresh(account.id, `live-${crypto.randomUUID()}`, now + HOUR, null),
        refresh(bystander.id, `other-used-${crypto.randomUUID()}`, now + HOUR, now - 5000),
      ]);

    const res = await tokenRequest(p, { grant_type: "client_credentials", scope: account.external_user_id });
    expect(res.status).toBe(200);

    const jtis = (await liveRows(account.id)).map((r) => r.jti);
    for (const jti of expired) expect(jtis).not.toContain(jti);
    for (const jti of live) expect(jtis).toContain(jti);
    expect(jtis).toHaveLength(3); // two live + the new one
    expect((await refreshRows(account.id)).map((r) => r.tokenHash.split("-")[0]).sort()).toEqual(expect.arrayContaining(["live"]));
    expect((await refreshRows(account.id)).filter((r) => r.usedAt !== null || r.expiresAt <= now)).toEqual([]);
    expect(await refreshRows(account.id)).toHaveLength(2); // the live one + the new one
    expect((await liveRows(bystander.id)).map((r) => r.jti).sort()).toEqual([...otherExpired].sort());
    expect(await refreshRows(bystander.id)).toHaveLength(1);
  });
});

describe("an account disabled while its token is being issued", () => {
  // The grant reads the account with the client, then writes the token pair and re-reads the account
  // in one D1 batch (a transaction). A disable lands either before that batch (the re-read sees it,
  // below) or after it (the disable finds the new token's row and revokes it: the DELETE test above).
  it("disabled after the account was read, before the token rows are written: invalid_scope, no rows left", async () => {
    const account = await createAccount(p);
    const real = db();
    let raced = false;
    const racing = openDb(
      interceptD1(env.DB, {
        async before(_sql, inBatch) {
          if (!inBatch || raced) return;
          raced = true;
          await real.update(accounts).set({ disabledAt: Date.now() }).where(eq(accounts.id, account.id));
        },
      }),
    );
    const partner = (await real.query.partners.findFirst({ where: (t, { eq }) => eq(t.id, p.partner_id) }))!;
    const attempt = clientCredentialsGrant(env, racing, config, partner, account.external_user_id, await findAccount(real, account.id));
    await expect(attempt).rejects.toBeInstanceOf(OAuthError);
    await expect(attempt).rejects.toMatchObject({ error: "invalid_scope" });
    expect(raced).toBe(true);
    expect(await liveRows(account.id)).toEqual([]);
    expect(await refreshRows(account.id)).toEqual([]);
    expect(await findAccount(real, account.id)).toMatchObject({ disabledAt: expect.any(Number) });
  });
});
