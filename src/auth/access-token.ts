import { base64url, fromBase64url } from "./secrets";

/**
 * Access tokens are self-contained and signed (HMAC-SHA256), so resolving one costs a signature
 * check and no storage read. Revocation (disabled accounts) is checked in the token's TokenGate
 * Durable Object, which the request calls anyway for rate limiting.
 *
 * Wire form: `pw1.<base64url(JSON claims)>.<base64url(signature)>`.
 */
export interface TokenClaims {
  /** token id: names the token's TokenGate object and its row in access_tokens */
  jti: string;
  partner_id: string;
  account_id: string;
  /** true when the token was issued for the partner admin scope */
  admin: boolean;
  /** expiry, seconds since the epoch */
  exp: number;
  /** shards of the token's gate (src/rate-limits/token-shards.ts); absent: one (tokens issued before sharding) */
  gate_shards?: number;
}

const PREFIX = "pw1";
const encoder = new TextEncoder();
/** Imported keys, resolved values only (never a promise another request started: src/lib/in-flight.ts). */
const keys = new Map<string, CryptoKey>();

async function hmacKey(secret: string): Promise<CryptoKey> {
  const known = keys.get(secret);
  if (known) return known;
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
  keys.set(secret, key);
  return key;
}

export async function signAccessToken(claims: TokenClaims, secret: string): Promise<string> {
  const body = base64url(encoder.encode(JSON.stringify(claims)));
  const signature = await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(`${PREFIX}.${body}`));
  return `${PREFIX}.${body}.${base64url(new Uint8Array(signature))}`;
}

export type VerifyResult = { ok: true; claims: TokenClaims } | { ok: false; reason: "malformed" | "signature" | "expired" };

export async function verifyAccessToken(token: string, secret: string, nowSeconds: number): Promise<VerifyResult> {
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== PREFIX) return { ok: false, reason: "malformed" };
  const [, body, sig] = parts as [string, string, string];
  const signature = fromBase64url(sig);
  const payload = fromBase64url(body);
  if (!signature || !payload) return { ok: false, reason: "malformed" };
  const valid = await crypto.subtle.verify("HMAC", await hmacKey(secret), signature, encoder.encode(`${PREFIX}.${body}`));
  if (!valid) return { ok: false, reason: "signature" };
  let claims: TokenClaims;
  try {
    claims = JSON.parse(new TextDecoder().decode(payload)) as TokenClaims;
  } catch {
    return { ok: false, reason: "malformed" };
  }
  if (claims.gate_shards !== undefined && !(Number.isInteger(claims.gate_shards) && claims.gate_shards >= 1)) return { ok: false, reason: "malformed" };
  if (typeof claims.exp !== "number" || claims.exp <= nowSeconds) return { ok: false, reason: "expired" };
  return { ok: true, claims };
}
