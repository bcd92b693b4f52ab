import { env } from "cloudflare:test";
import type { Schemas } from "../../client";
import { signAccessToken } from "../../src/auth/access-token";
import { openDb } from "../../src/db/client";
import type { RegistrationType } from "../../src/domain/vocabulary";
import { type PartnerCredentials, provisionPartner } from "../../src/services/partners";
import { demoGraph } from "./demo-graph";
import { type ApiResponse, rawCall } from "./raw-call";
import { api } from "./typed-api";

export type Json = Record<string, any>;

/** POST /v0/oauth/token with HTTP Basic client credentials; `clientIp` sets CF-Connecting-IP (the endpoint is IP-limited). */
export async function tokenRequest(clientId: string, secret: string, form: Record<string, string>, clientIp?: string): Promise<ApiResponse> {
  return rawCall("POST", "/v0/oauth/token", {
    raw: new URLSearchParams(form).toString(),
    headers: {
      Authorization: `Basic ${btoa(`${clientId}:${secret}`)}`,
      "Content-Type": "application/x-www-form-urlencoded",
      ...(clientIp ? { "CF-Connecting-IP": clientIp } : {}),
    },
  });
}

export interface Partner extends PartnerCredentials {
  adminToken: string;
  /** a token acting as the given external_user_id (end-user mode, spec 5.8) */
  tokenFor(externalUserId: string): Promise<string>;
}

let partners = 0;

export async function newPartner(name = "Test partner"): Promise<Partner> {
  const credentials = await provisionPartner(openDb(env.DB), name);
  // Each test partner requests its tokens from an address of its own (the token endpoint is limited
  // per IP): test files sharing a workerd then never wait on each other's windows.
  const ip = `198.18.${(partners >> 8) & 255}.${partners++ & 255}`;
  const tokenFor = async (scope: string) => {
    const res = await tokenRequest(credentials.client_id, credentials.client_secret, { grant_type: "client_credentials", scope }, ip);
    if (res.status !== 200) throw new Error(`token for ${scope}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.access_token as string;
  };
  return { ...credentials, adminToken: await tokenFor(credentials.admin_external_user_id), tokenFor };
}

let counter = 0;
export const uniqueId = (prefix = "user") => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

/**
 * A fresh, validly signed access token (the claims the token endpoint issues), minted without a
 * request. Every token has its own rate-limit windows, so tests that call one endpoint more often
 * than its per-token limit allows, and each authorization-matrix cell, use fresh ones.
 */
export function mintToken(partnerId: string, accountId: string, admin: boolean): Promise<string> {
  return signAccessToken(
    { jti: crypto.randomUUID(), partner_id: partnerId, account_id: accountId, admin, exp: Math.floor(Date.now() / 1000) + 600 },
    env.TOKEN_SIGNING_KEY,
  );
}

/** A fresh admin token of the partner (see mintToken). */
export const freshAdminToken = (p: Partner): Promise<string> => mintToken(p.partner_id, p.admin_account_id, true);

function failure(what: string, res: ApiResponse): never {
  throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
}

export async function createAccount(p: Partner, externalUserId = uniqueId()) {
  const res = await api("POST", "/v0/accounts", { token: p.adminToken, body: { external_user_id: externalUserId } });
  return res.status === 201 ? res.body : failure("create account", res);
}

/** Ingests a graph document (default: the demo graph, label gref-demo) for the partner; returns the 201 body. */
export async function createGraph(p: Partner, doc: Schemas["GraphDocument"] = demoGraph(), token = p.adminToken) {
  const res = await api("POST", "/v0/graphs", { token, body: doc });
  return res.status === 201 ? res.body : failure("create graph", res);
}

const demoGraphOf = new Map<string, ReturnType<typeof createGraph>>();

/** The partner's gref-demo graph, ingested on first use. */
export function ensureDemoGraph(p: Partner): ReturnType<typeof createGraph> {
  let graph = demoGraphOf.get(p.partner_id);
  if (!graph) {
    graph = createGraph(p);
    demoGraphOf.set(p.partner_id, graph);
  }
  return graph;
}

export async function createInstance(p: Partner, body: Schemas["CreateLearningInstance"] = { graph_id: "gref-demo", name: "Course" }) {
  if (body.graph_id === "gref-demo") await ensureDemoGraph(p);
  const res = await api("POST", "/v0/learning-instances", { token: p.adminToken, body });
  return res.status === 201 ? res.body : failure("create instance", res);
}

export async function register(p: Partner, accountId: string, liId: string, type: RegistrationType) {
  const res = await api("POST", "/v0/registrations", { token: p.adminToken, body: { account_id: accountId, learning_instance_id: liId, type } });
  return res.status === 201 ? res.body : failure("register", res);
}
