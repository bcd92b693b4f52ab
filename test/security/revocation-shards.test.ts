import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TokenGate } from "../../src/objects/token-gate";
import { DEFAULT_TOKEN_GATE_SHARDS, shardIndex, shardName } from "../../src/rate-limits/token-shards";
import { createAccount, newPartner } from "../support/api";
import { type ApiResponse, rawCall } from "../support/raw-call";
import { jtiOf } from "../support/tokens";
import { api } from "../support/typed-api";

/**
 * Revocation stays immediate with one token's gate split into shards (docs/architecture.md "Tokens"):
 * once the disable of an account has answered, every request of its tokens is 401, whichever shard
 * of the token's gate its path falls on, used before the disable or not.
 */

const SHARDS = DEFAULT_TOKEN_GATE_SHARDS;
let ips = 0;
const nextIp = () => `198.51.${(ips >> 8) & 255}.${ips++ & 255}`;

/** A registration path (unknown id: 404 once admitted) on each shard of a token's gate, index = shard. */
function pathPerShard(): string[] {
  const paths: (string | undefined)[] = Array.from({ length: SHARDS }, () => undefined);
  while (paths.includes(undefined)) {
    const path = `/v0/registrations/${crypto.randomUUID()}`;
    paths[shardIndex(`GET ${path}`, SHARDS)] ??= path;
  }
  return paths as string[];
}

describe("disabling an account revokes its tokens on every shard before the DELETE answers", () => {
  it("shards used before the disable, shards used during it and shards never used all answer 401 right after", async () => {
    const p = await newPartner();
    const account = await createAccount(p);
    const token = await p.tokenFor(account.external_user_id);
    const paths = pathPerShard();
    // half of the shards in use before the disable
    for (const path of paths.slice(0, SHARDS / 2)) expect((await rawCall("GET", path, { token })).status).not.toBe(401);

    // Requests of the token keep coming on every shard while the disable runs, each from an address
    // of its own: the 401s of a revoked token are IP-limited per (address, path), which is not what
    // is tested here. The DELETE starts once every loop has had an answer (not after a timer: timers
    // wait behind the loops' I/O in workerd); the loops stop when it has answered, or at the deadline.
    let stop = false;
    const deadline = Date.now() + 20_000;
    let started = 0;
    let allStarted = () => {};
    const everyLoopAnswered = new Promise<void>((resolve) => {
      allStarted = resolve;
    });
    const racing = paths.map(async (path) => {
      const seen: number[] = [];
      while (!stop && Date.now() < deadline) {
        seen.push((await rawCall("GET", path, { token, headers: { "CF-Connecting-IP": nextIp() } })).status);
        if (seen.length === 1 && ++started === paths.length) allStarted();
      }
      return seen;
    });
    let del: ApiResponse;
    try {
      await everyLoopAnswered;
      del = await api("DELETE", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: account.id } });
    } finally {
      stop = true;
    }
    expect(del.status).toBe(204);
    // on every shard: admitted (404, the registration is unknown) until the revocation reached it, 401 from then on
    for (const seen of await Promise.all(racing)) expect(seen.map((s) => (s === 401 ? "r" : "a")).join("")).toMatch(/^a*r*$/);

    const after = await Promise.all(paths.map(async (path) => (await rawCall("GET", path, { token, headers: { "CF-Connecting-IP": nextIp() } })).status));
    expect(after).toEqual(paths.map(() => 401));
    const jti = await jtiOf(token);
    for (let i = 0; i < SHARDS; i++) {
      await runInDurableObject(env.TOKEN_GATE.get(env.TOKEN_GATE.idFromName(shardName(jti, i))), (_: TokenGate, state) => {
        expect(state.storage.kv.get("revoked"), `shard ${i}`).toBe(true);
      });
    }
  });

  it("a token that used one shard: after the disable every other shard refuses it on first use", async () => {
    const p = await newPartner();
    const account = await createAccount(p);
    const token = await p.tokenFor(account.external_user_id);
    expect((await api("GET", "/v0/accounts/current", { token })).status).toBe(200);
    expect((await api("DELETE", "/v0/accounts/{account_id}", { token: p.adminToken, path: { account_id: account.id } })).status).toBe(204);
    expect((await api("GET", "/v0/accounts/current", { token })).status).toBe(401);
    for (const path of pathPerShard()) {
      const res = await rawCall("GET", path, { token });
      expect(res.status, path).toBe(401);
      expect(res.body.message).toBe("The access token has been revoked.");
    }
  });
});
