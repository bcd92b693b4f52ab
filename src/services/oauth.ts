import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { signAccessToken } from "../auth/access-token";
import { hashSecret, randomSecret, secretMatches } from "../auth/secrets";
import type { Config } from "../config";
import type { Db } from "../db/client";
import { preparedPerDb } from "../db/prepared";
import { type AccountRow, accessTokens, accounts, type PartnerRow, partners, refreshTokens } from "../db/schema";
import type { Env } from "../env";
import { MAX_LIVE_ACCESS_TOKENS_PER_ACCOUNT } from "../schemas/limits";
import type { TokenResponse } from "../schemas/oauth";
import { type IssuedToken, REVOKE_CONCURRENCY, revokeAccessTokens } from "./accounts";

/** RFC 6749 section 5.2 error codes used by the token endpoint. */
export type OAuthErrorCode = "invalid_request" | "invalid_client" | "invalid_grant" | "unsupported_grant_type" | "invalid_scope";

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
  ) {
    super(description);
  }
  get status(): 400 | 401 {
    return this.error === "invalid_client" ? 401 : 400;
  }
}

/** The client and the account its scope names (prepared once, not built per token request). */
const clientQueryOf = preparedPerDb((db) =>
  db
    .select({ partner: partners, account: accounts })
    .from(partners)
    .leftJoin(accounts, and(eq(accounts.partnerId, partners.id), eq(accounts.externalUserId, sql.placeholder("scope"))))
    .where(eq(partners.clientId, sql.placeholder("clientId")))
    .prepare(),
);

/**
 * Authenticates the client (HTTP Basic: client id and secret) against the stored secret digest. With
 * `scope` (a client-credentials grant), the account it names is read in the same D1 query (a join on
 * the partner), so a token request costs one read before its writes.
 */
export async function authenticateClient(
  db: Db,
  authorization: string | undefined,
  scope?: string,
): Promise<{ partner: PartnerRow; account: AccountRow | undefined }> {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? "");
  if (!match?.[1]) throw new OAuthError("invalid_client", "Send the client id and secret with HTTP Basic authentication.");
  let decoded: string;
  try {
    decoded = atob(match[1]);
  } catch {
    throw new OAuthError("invalid_client", "The Basic credentials are not valid base64.");
  }
  const colon = decoded.indexOf(":");
  let clientId: string;
  let secret: string;
  try {
    clientId = decodeURIComponent(colon < 0 ? decoded : decoded.slice(0, colon));
    secret = colon < 0 ? "" : decodeURIComponent(decoded.slice(colon + 1));
  } catch {
    throw new OAuthError("invalid_client", "The Basic credentials are not valid form-urlencoded text.");
  }
  // external_user_id is never empty, so without a scope the join finds nothing
  const row = await clientQueryOf(db).get({ clientId, scope: scope ?? "" });
  // Compare against a digest even when the client is unknown, so both failures take the same time.
  const ok = await secretMatches(secret, row?.partner.clientSecretHash ?? "no-such-client");
  if (!row || !ok) throw new OAuthError("invalid_client", "Unknown client or wrong client secret.");
  return { partner: row.partner, account: row.account ?? undefined };
}

/**
 * Client-credentials grant for the account named by `scope`, as `authenticateClient` read it with
 * the client (undefined: no such account).
 */
export async function clientCredentialsGrant(
  env: Env,
  db: Db,
  config: Config,
  partner: PartnerRow,
  scope: string | undefined,
  account: AccountRow | undefined,
): Promise<TokenResponse> {
  if (!scope) throw new OAuthError("invalid_request", "scope is required: the external_user_id of the account the token acts for.");
  if (!account || account.disabledAt !== null) {
    throw new OAuthError("invalid_scope", "The scope names no active account of this partner.");
  }
  return issueTokens(env, db, config, partner, account);
}

const invalidGrant = () => new OAuthError("invalid_grant", "The refresh token is unknown, expired, already used, or its account is disabled.");

/**
 * Spends the refresh token (at most once, atomically), retires the access token issued with it
 * (docs/architecture.md "Tokens": the new pair replaces the old one) and returns a fresh pair for the same account.
 */
export async function refreshTokenGrant(env: Env, db: Db, config: Config, partner: PartnerRow, refreshToken: string | undefined): Promise<TokenResponse> {
  if (!refreshToken) throw new OAuthError("invalid_request", "refresh_token is required.");
  const now = Date.now();
  const tokenHash = await hashSecret(refreshToken);
  const spent = await db
    .update(refreshTokens)
    .set({ usedAt: now })
    .where(and(eq(refreshTokens.tokenHash, tokenHash), eq(refreshTokens.partnerId, partner.id), isNull(refreshTokens.usedAt), gt(refreshTokens.expiresAt, now)))
    .returning({ accountId: refreshTokens.accountId, accessJti: refreshTokens.accessJti });
  const row = spent[0];
  if (!row) throw invalidGrant();
  // One round trip: the account, and the access token issued with the spent refresh token (if still live).
  const [found, previous] = await db.batch([
    db.select().from(accounts).where(eq(accounts.id, row.accountId)),
    db
      .select({ jti: accessTokens.jti, expiresAt: accessTokens.expiresAt })
      .from(accessTokens)
      .where(and(eq(accessTokens.jti, row.accessJti ?? ""), gt(accessTokens.expiresAt, now))),
  ]);
  const account = found[0];
  if (!account || account.disabledAt !== null) throw invalidGrant();
  await retire(env, db, previous, "refresh grant");
  return issueTokens(env, db, config, partner, account);
}

/**
 * Retires access tokens (revoked in their TokenGates, rows deleted). Housekeeping never fails the
 * token request: if a gate cannot be reached the error is logged and the rows stay, so the tokens
 * remain listed (a disable still revokes them, the next issuance retries the cap) and expire on time.
 */
async function retire(env: Env, db: Db, tokens: IssuedToken[], why: string): Promise<void> {
  if (tokens.length === 0) return;
  try {
    await revokeAccessTokens(env, db, tokens);
  } catch (error) {
    console.error(JSON.stringify({ tokens: tokens.map((t) => t.jti), retire: `${why}: revocation failed, rows kept`, error: String(error) }));
  }
}

/**
 * The D1 batch of an issuance (a transaction, one round trip), as plain SQL (written as drizzle
 * writes it): building these six statements with drizzle on every token request cost about a tenth
 * of the request's CPU (docs/performance.md). In order: bookkeeping (the account's expired access tokens and spent or
 * expired refresh tokens dropped, so it stays small), the new pair, then the re-check. The re-check
 * reads after the token rows are written, so a concurrent disable either sees this token's row (and
 * revokes it) or this read sees the disable.
 *
 * The last statement reads the account's live access tokens beyond MAX_LIVE_ACCESS_TOKENS_PER_ACCOUNT,
 * oldest (earliest expiry) first: issuance retires them, so a client is never refused for the cap
 * (docs/architecture.md "Tokens") and the number of gates one disable must call stays bounded. One
 * indexed query (no rows in the usual case); one TokenGate call per retired token. Concurrent
 * issuances at the cap may both pick the same oldest token, overshooting by the requests in flight
 * until the next issuance.
 */
const ISSUE_SQL = [
  'delete from "access_tokens" where "account_id" = ?1 and "expires_at" <= ?2',
  'delete from "refresh_tokens" where "account_id" = ?1 and ("used_at" is not null or "expires_at" <= ?2)',
  'insert into "access_tokens" ("jti", "account_id", "expires_at") values (?1, ?2, ?3)',
  'insert into "refresh_tokens" ("token_hash", "partner_id", "account_id", "expires_at", "used_at", "access_jti") values (?1, ?2, ?3, ?4, null, ?5)',
  'select "disabled_at" from "accounts" where "id" = ?1',
  'select "jti", "expires_at" from "access_tokens" where "account_id" = ?1 and "expires_at" > ?2 order by "expires_at" desc, rowid desc limit ?3 offset ?4',
] as const;

async function issueTokens(env: Env, db: Db, config: Config, partner: PartnerRow, account: AccountRow): Promise<TokenResponse> {
  const now = Date.now();
  const exp = Math.floor(now / 1000) + config.accessTokenTtlSeconds;
  const jti = crypto.randomUUID();
  const refresh = randomSecret();
  const refreshHash = await hashSecret(refresh);
  const [cleanAccess, cleanRefresh, insertAccess, insertRefresh, recheck, cap] = ISSUE_SQL;
  const d1 = db.$client;
  const results = await d1.batch([
    d1.prepare(cleanAccess).bind(account.id, now),
    d1.prepare(cleanRefresh).bind(account.id, now),
    d1.prepare(insertAccess).bind(jti, account.id, exp * 1000),
    d1.prepare(insertRefresh).bind(refreshHash, partner.id, account.id, now + config.refreshTokenTtlSeconds * 1000, jti),
    d1.prepare(recheck).bind(account.id),
    d1.prepare(cap).bind(account.id, now, REVOKE_CONCURRENCY, MAX_LIVE_ACCESS_TOKENS_PER_ACCOUNT),
  ]);
  const reread = (results[4]?.results ?? []) as { disabled_at: number | null }[];
  const beyond = ((results[5]?.results ?? []) as { jti: string; expires_at: number }[]).map((r) => ({ jti: r.jti, expiresAt: r.expires_at }));
  const current = reread[0];
  if (!current || current.disabled_at !== null) {
    // The pair is never handed out: remove its rows so nothing of it outlives the refusal.
    await db.batch([db.delete(accessTokens).where(eq(accessTokens.jti, jti)), db.delete(refreshTokens).where(eq(refreshTokens.tokenHash, refreshHash))]);
    throw new OAuthError("invalid_scope", "The account has been disabled.");
  }
  await retire(env, db, beyond, "live-token cap");
  const accessToken = await signAccessToken(
    { jti, partner_id: partner.id, account_id: account.id, admin: account.id === partner.adminAccountId, exp, gate_shards: config.tokenGateShards },
    env.TOKEN_SIGNING_KEY,
  );
  return {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: config.accessTokenTtlSeconds,
    refresh_token: refresh,
    scope: account.externalUserId,
    account_id: account.id,
    expires_at: new Date(exp * 1000).toISOString(),
  };
}
