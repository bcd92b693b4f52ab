import { env, runInDurableObject } from "cloudflare:test";
import { verifyAccessToken } from "../../src/auth/access-token";
import { openDb } from "../../src/db/client";
import { accessTokens } from "../../src/db/schema";
import type { TokenGate } from "../../src/objects/token-gate";
import { shardIndex, shardName } from "../../src/rate-limits/token-shards";
import { type Partner, tokenRequest } from "./api";
import type { ApiResponse } from "./raw-call";

/** Token helpers for the token tests: requests from many client addresses, rows written directly, gates read. */

/**
 * A token request from the next of 250 client addresses in `network` (e.g. "198.51.100."): these
 * tests make many token requests and the endpoint is IP-limited per address.
 */
export function tokenRequestsFrom(network: string): (p: Partner, form: Record<string, string>) => Promise<ApiResponse> {
  let counter = 0;
  return (p, form) => tokenRequest(p.client_id, p.client_secret, form, `${network}${++counter % 250}`);
}

/** The jti of an access token the service issued. */
export async function jtiOf(token: string): Promise<string> {
  const verified = await verifyAccessToken(token, env.TOKEN_SIGNING_KEY, Math.floor(Date.now() / 1000));
  if (!verified.ok) throw new Error("token");
  return verified.claims.jti;
}

/** `n` access-token rows of the account written directly (as if issued), expiring at `expiresAt`; their jtis. */
export async function insertLiveTokens(accountId: string, n: number, expiresAt = Date.now() + 3_600_000): Promise<string[]> {
  const jtis = Array.from({ length: n }, () => crypto.randomUUID());
  // D1 allows 100 bound parameters per statement: 30 rows x 3 columns per insert
  for (let i = 0; i < jtis.length; i += 30) {
    await openDb(env.DB)
      .insert(accessTokens)
      .values(jtis.slice(i, i + 30).map((jti) => ({ jti, accountId, expiresAt })));
  }
  return jtis;
}

/** Whether the token's TokenGate has recorded its revocation. */
export function revokedInGate(jti: string): Promise<boolean> {
  return runInDurableObject(env.TOKEN_GATE.get(env.TOKEN_GATE.idFromName(jti)), (_: TokenGate, state) => state.storage.kv.get("revoked") === true);
}

/** The shard of the token's gate that holds the requests of `pathKey` ("METHOD /v0/concrete/path"), as protect picks it. */
export async function gateOf(token: string, pathKey: string): Promise<DurableObjectStub<TokenGate>> {
  const verified = await verifyAccessToken(token, env.TOKEN_SIGNING_KEY, Math.floor(Date.now() / 1000));
  if (!verified.ok) throw new Error("token");
  const { jti, gate_shards } = verified.claims;
  return env.TOKEN_GATE.get(env.TOKEN_GATE.idFromName(shardName(jti, shardIndex(pathKey, gate_shards ?? 1))));
}
