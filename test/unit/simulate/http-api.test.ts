import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { isPathwiseError } from "../../../client";
import { simulatorClient } from "../../../scripts/simulate/http";

/** A stand-in service answering each request with the next scripted response (and the token endpoint with a token). */
function stub(script: { status: number; headers?: Record<string, string>; body?: unknown }[]): Promise<{ server: Server; base: string; seen: number[] }> {
  const seen: number[] = [];
  const server = createServer((req, res) => {
    if (req.url === "/v0/oauth/token") {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ access_token: "t", expires_in: 3600 }));
      return;
    }
    seen.push(Date.now());
    const next = script.shift() ?? { status: 200, body: {} };
    res.writeHead(next.status, { "Content-Type": "application/json", ...next.headers });
    res.end(JSON.stringify(next.body ?? {}));
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen })),
  );
}

const credentials = { client_id: "c", client_secret: "s", admin_external_user_id: "admin" };
let server: Server | undefined;
afterEach(() => server?.close());

describe("the simulator's client (pathwise/client with request counts)", () => {
  it("waits out a 429 (Retry-After) and sends the same request again", async () => {
    const s = await stub([
      { status: 429, headers: { "Retry-After": "1" }, body: { code: 429 } },
      { status: 200, body: { ok: true } },
    ]);
    server = s.server;
    const { api, stats } = simulatorClient(s.base, credentials);
    expect(await api.GET("/v0/accounts/current")).toEqual({ ok: true });
    expect(s.seen).toHaveLength(2);
    expect((s.seen[1] as number) - (s.seen[0] as number)).toBeGreaterThanOrEqual(950);
    expect(stats.refused).toBe(1);
    expect(stats.requests).toBe(3); // the token, the refused request, the same request again
  });

  it("paces itself when the window is used up (RateLimit-Remaining 0)", async () => {
    const s = await stub([{ status: 200, headers: { "RateLimit-Remaining": "0", "RateLimit-Reset": "1" } }, { status: 200 }]);
    server = s.server;
    const { api } = simulatorClient(s.base, credentials);
    await api.GET("/v0/accounts/current");
    await api.GET("/v0/accounts/current");
    expect((s.seen[1] as number) - (s.seen[0] as number)).toBeGreaterThanOrEqual(950);
  });

  it("fails on a status that waiting does not cure", async () => {
    const s = await stub([{ status: 404, body: { code: 404 } }]);
    server = s.server;
    const failure = await simulatorClient(s.base, credentials)
      .api.GET("/v0/accounts/current")
      .catch((e: unknown) => e);
    expect(isPathwiseError(failure) && failure.status).toBe(404);
  });
});
