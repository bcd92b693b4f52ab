/**
 * One token's gate is split into shards so that its traffic is not capped by one Durable Object
 * (docs/rate-limits.md "Shards"). A token window of spec 8.2 is kept per (token, method, concrete
 * path) and lives in the shard of its bucket ("METHOD /v0/concrete/path", src/http/protect.ts), so
 * each window is in exactly one shard and stays exact; a request with no token window goes to the
 * shard of its concrete path (src/http/admit.ts). Shard 0 is named by the token id alone (as the one
 * gate of a token was before sharding) and keeps the list of the other shards in use, so a
 * revocation reaches every one of them before it returns.
 *
 * The number of shards is fixed per token at issuance (claim `gate_shards`, from TOKEN_GATE_SHARDS),
 * so changing the setting never moves a live token's windows; a token without the claim has one.
 */
export const MAX_TOKEN_GATE_SHARDS = 64;
export const DEFAULT_TOKEN_GATE_SHARDS = 16;

/** Which shard of a token's gate counts a request, and how it finds shard 0. */
export interface GateShard {
  jti: string;
  /** 0 .. shards - 1 */
  index: number;
}

/** FNV-1a (32 bits) of the text's UTF-16 code units: a cheap, stable spread of paths over shards. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The shard of `key` (a window's bucket, or "METHOD /concrete/path") among `shards`; always 0 for one shard. */
export function shardIndex(key: string, shards: number): number {
  return shards <= 1 ? 0 : fnv1a(key) % shards;
}

/** The Durable Object name of a shard: the token id for shard 0, "<jti>/<index>" for the others. */
export function shardName(jti: string, index: number): string {
  return index === 0 ? jti : `${jti}/${index}`;
}
