import { SELF } from "cloudflare:test";

export const BASE = "https://pathwise.test";

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
}

/**
 * An untyped black-box call through the Worker's fetch handler: for the requests the typed `api`
 * (test/support/typed-api.ts) cannot express on purpose: malformed or wrongly typed bodies, raw
 * bytes, routes outside the API document, a method or path chosen at run time (the matrices).
 */
export async function rawCall(
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
