import { and, eq, gt, inArray, isNull, lte, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { type AccountRow, accessTokens, accounts } from "../db/schema";
import type { Env } from "../env";
import { unprocessable } from "../errors";
import { sha256Hex } from "../lib/digest";
import type { AccountView } from "../schemas/accounts";
import { containsEmail } from "./pii";

export const ADMIN_ENTITLEMENTS = [
  "partner_admin",
  "partner_graph_ingest",
  "partner_graph_validate",
  "partner_graph_update",
  "create_learning_instance",
] as const;

export function accountView(row: AccountRow, withEntitlements = true): AccountView {
  const view: AccountView = { id: row.id, external_user_id: row.externalUserId };
  if (withEntitlements && row.entitlements?.length) view.entitlements = row.entitlements;
  return view;
}

export type CreateAccountResult = { ok: true; account: AccountRow } | { ok: false; message: string };

/** Creates an account, or explains why not (PII in the id, id already used, even by a disabled account). */
export async function createAccount(db: Db, partnerId: string, externalUserId: string, entitlements?: string[]): Promise<CreateAccountResult> {
  if (containsEmail(externalUserId)) {
    return { ok: false, message: "external_user_id looks like an e-mail address; send an anonymized id (no personal data)." };
  }
  const row: AccountRow = {
    id: crypto.randomUUID(),
    partnerId,
    externalUserId,
    entitlements: entitlements?.length ? entitlements : null,
    disabledAt: null,
    createdAt: Date.now(),
    erasedAt: null,
  };
  // Not even an erased account's id is reused: its tombstone keeps a digest of it (one statement, so
  // an erasure converting the id at the same moment cannot slip between a check and the insert).
  const tombstone = await erasedExternalUserId(partnerId, externalUserId);
  const inserted = await db.all<{ id: string }>(
    sql`INSERT INTO ${accounts} (id, partner_id, external_user_id, entitlements, disabled_at, created_at)
        SELECT ${row.id}, ${partnerId}, ${externalUserId}, ${row.entitlements ? JSON.stringify(row.entitlements) : null}, NULL, ${row.createdAt}
        WHERE NOT EXISTS (SELECT 1 FROM ${accounts} WHERE ${accounts.partnerId} = ${partnerId} AND ${accounts.externalUserId} = ${tombstone})
        ON CONFLICT DO NOTHING RETURNING id`,
  );
  if (inserted.length === 0) {
    return { ok: false, message: `external_user_id '${externalUserId}' is already used by an account of this partner.` };
  }
  return { ok: true, account: row };
}

export async function createAccountOrThrow(db: Db, partnerId: string, externalUserId: string): Promise<AccountRow> {
  const result = await createAccount(db, partnerId, externalUserId);
  if (!result.ok) throw unprocessable(result.message, [{ path: "body.external_user_id", message: result.message }]);
  return result.account;
}

/** An account of any partner (the caller rule then hides other partners' ones); an erased account is not found. */
export async function findAccount(db: Db, id: string): Promise<AccountRow | undefined> {
  return db
    .select()
    .from(accounts)
    .where(and(eq(accounts.id, id), isNull(accounts.erasedAt)))
    .get();
}

/**
 * What an erased account's `external_user_id` becomes (docs/privacy.md): a SHA-256 digest of the
 * partner and the id, after a control character no partner-chosen id may contain, so the tombstone
 * can never collide with a live account's id and the id is never given to a new account.
 */
export async function erasedExternalUserId(partnerId: string, externalUserId: string): Promise<string> {
  return `\u0001erased:${await sha256Hex(`${partnerId}\n${externalUserId}`)}`;
}

/**
 * The view of GET /accounts/current, per isolate: id, external_user_id and entitlements never change
 * once an account exists (the only update an account gets is `disabled_at`, which the view does not
 * show, and a disabled account's tokens are revoked before it could ask), so a cached view is never
 * stale and the call needs no D1 read after the first. Bounded: the oldest entries go first.
 */
const views = new Map<string, AccountView>();
const VIEWS_MAX = 10_000;

export async function accountViewById(db: Db, id: string): Promise<AccountView | undefined> {
  const hit = views.get(id);
  if (hit) return hit;
  const row = await findAccount(db, id);
  if (!row) return undefined;
  const view = accountView(row);
  views.set(id, view);
  if (views.size > VIEWS_MAX) views.delete(views.keys().next().value as string);
  return view;
}

export async function findAccountByExternalId(db: Db, partnerId: string, externalUserId: string): Promise<AccountRow | undefined> {
  return db
    .select()
    .from(accounts)
    .where(and(eq(accounts.partnerId, partnerId), eq(accounts.externalUserId, externalUserId)))
    .get();
}

/** Gate calls in flight at once while disabling an account (each revocation is one Durable Object call). */
export const REVOKE_CONCURRENCY = 50;

/**
 * A token's gate as revocation and erasure reach it: shard 0, named by the token id, which reaches
 * the token's other shards before it answers (src/rate-limits/token-shards.ts).
 */
export function tokenGate(env: Env, jti: string) {
  return env.TOKEN_GATE.get(env.TOKEN_GATE.idFromName(jti));
}

/** An issued access token as recorded in `access_tokens`. */
export interface IssuedToken {
  jti: string;
  /** ms since the epoch */
  expiresAt: number;
}

/**
 * Revokes the tokens in their TokenGates (they get 401 from their next request on) and deletes
 * their `access_tokens` rows: REVOKE_CONCURRENCY gate calls at a time, each chunk's rows deleted
 * once its gates answered. If a gate call fails this throws with the rows of unfinished chunks kept,
 * so the tokens stay listed for a later attempt (a retried disable, the next issuance).
 */
export async function revokeAccessTokens(env: Env, db: Db, tokens: IssuedToken[]): Promise<void> {
  for (let i = 0; i < tokens.length; i += REVOKE_CONCURRENCY) {
    const chunk = tokens.slice(i, i + REVOKE_CONCURRENCY);
    await Promise.all(chunk.map((t) => tokenGate(env, t.jti).revoke(t.expiresAt)));
    await db.delete(accessTokens).where(
      inArray(
        accessTokens.jti,
        chunk.map((t) => t.jti),
      ),
    );
  }
}

/**
 * Disables the account (its external_user_id stays taken) and revokes every live access token of
 * it in that token's gate, so they stop working at once without a storage read per request.
 *
 * The tokens are revoked by `revokeAccessTokens`; if a revocation fails the call throws with
 * `disabled_at` already set and the unfinished rows kept, so a retried DELETE re-lists what is
 * left and finishes the job. The number of live tokens per account is capped at issuance
 * (MAX_LIVE_ACCESS_TOKENS_PER_ACCOUNT), which bounds the calls one disable makes.
 */
export async function disableAccount(env: Env, db: Db, account: AccountRow): Promise<void> {
  const now = Date.now();
  if (account.disabledAt === null) {
    await db.update(accounts).set({ disabledAt: now }).where(eq(accounts.id, account.id));
  }
  const live = await db
    .select({ jti: accessTokens.jti, expiresAt: accessTokens.expiresAt })
    .from(accessTokens)
    .where(and(eq(accessTokens.accountId, account.id), gt(accessTokens.expiresAt, now)))
    .all();
  await revokeAccessTokens(env, db, live);
  await db.delete(accessTokens).where(and(eq(accessTokens.accountId, account.id), lte(accessTokens.expiresAt, now)));
}
