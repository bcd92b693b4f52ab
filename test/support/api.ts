import { env, SELF } from "cloudflare:test";
import { openDb } from "../../src/db/client";
import { type PartnerCredentials, provisionPartner } from "../../src/services/partners";
import { demoGraph } from "./demo-graph";

export const BASE = "https://pathwise.test";

export type Json = Record<string, any>;

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
}

/** A black-box call through the Worker's fetch handler. */
export async function call(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["Content-Type"] ??= "application/json";
  }
  const res = await SELF.fetch(`${BASE}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

export async function tokenRequest(clientId: string, secret: string, form: Record<string, string>): Promise<ApiResponse> {
  return call("POST", "/v0/oauth/token", {
    raw: new URLSearchParams(form).toString(),
    headers: { Authorization: `Basic ${btoa(`${clientId}:${secret}`)}`, "Content-Type": "application/x-www-form-urlencoded" },
  });
}

export interface Partner extends PartnerCredentials {
  adminToken: string;
  /** a token acting as the given external_user_id (end-user mode, spec 5.8) */
  tokenFor(externalUserId: string): Promise<string>;
}

export async function newPartner(name = "Test partner"): Promise<Partner> {
  const credentials = await provisionPartner(openDb(env.DB), name);
  const tokenFor = async (scope: string) => {
    const res = await tokenRequest(credentials.client_id, credentials.client_secret, { grant_type: "client_credentials", scope });
    if (res.status !== 200) throw new Error(`token for ${scope}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.access_token as string;
  };
  return { ...credentials, adminToken: await tokenFor(credentials.admin_external_user_id), tokenFor };
}

let counter = 0;
export const uniqueId = (prefix = "user") => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

export async function createAccount(p: Partner, externalUserId = uniqueId()): Promise<Json> {
  const res = await call("POST", "/v0/accounts", { token: p.adminToken, body: { external_user_id: externalUserId } });
  if (res.status !== 201) throw new Error(`create account: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Ingests a graph document (default: the demo graph, label gref-demo) for the partner; returns the 201 body. */
export async function createGraph(p: Partner, doc: Json = demoGraph()): Promise<Json> {
  const res = await call("POST", "/v0/graphs", { token: p.adminToken, body: doc });
  if (res.status !== 201) throw new Error(`create graph: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const demoGraphOf = new Map<string, Promise<Json>>();

/** The partner's gref-demo graph, ingested on first use. */
export function ensureDemoGraph(p: Partner): Promise<Json> {
  let graph = demoGraphOf.get(p.partner_id);
  if (!graph) {
    graph = createGraph(p);
    demoGraphOf.set(p.partner_id, graph);
  }
  return graph;
}

export async function createInstance(p: Partner, body: Json = { graph_id: "gref-demo", name: "Course" }): Promise<Json> {
  if (body.graph_id === "gref-demo") await ensureDemoGraph(p);
  const res = await call("POST", "/v0/learning-instances", { token: p.adminToken, body });
  if (res.status !== 201) throw new Error(`create instance: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function register(p: Partner, accountId: string, liId: string, type: "learner" | "instructor"): Promise<Json> {
  const res = await call("POST", "/v0/registrations", { token: p.adminToken, body: { account_id: accountId, learning_instance_id: liId, type } });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
