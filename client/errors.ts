import type { LimitedBy } from "../src/rate-limits/table";
import type { components } from "./schema";

/** The API's error body (`{code, message, error_id, details?}`), as the OpenAPI document types it. */
export type ApiErrorBody = components["schemas"]["Error"];
/** The token endpoint's RFC 6749 error body (it also carries code, message and error_id). */
export type OAuthErrorBody = components["schemas"]["OAuthError"];

/**
 * The API answered with an error status. Carries the body's fields as typed values: `code` (the
 * HTTP status), `message`, `error_id` (quote it to the operator: the server logged the cause under
 * it), `details` (validation failures: which field and why) and, from the token endpoint, the RFC
 * 6749 `oauthError`. Never carries the access token or the request body.
 */
export class PathwiseError extends Error {
  override readonly name = "PathwiseError";
  /** the HTTP status */
  readonly status: number;
  /** the body's `code` (equal to the status) */
  readonly code: number;
  readonly error_id: string | undefined;
  readonly details: { path: string; message: string }[] | undefined;
  /** RFC 6749 error code (token endpoint only): invalid_client, invalid_grant, invalid_scope, ... */
  readonly oauthError: OAuthErrorBody["error"] | undefined;
  /** set on 429: who limited the request and how long the server asked to wait */
  readonly rateLimit: { limitedBy: LimitedBy | undefined; retryAfterMs: number | undefined } | undefined;
  /** the X-Request-Id the service gave the response */
  readonly requestId: string | undefined;
  /** "METHOD /v0/path" of the request (no query string, no token) */
  readonly request: string;
  /** the body's message alone (`message` also names the request and the status) */
  readonly apiMessage: string;

  constructor(status: number, body: unknown, response: Pick<Response, "headers">, request: string) {
    const b = (typeof body === "object" && body !== null ? body : {}) as Partial<ApiErrorBody & OAuthErrorBody>;
    const message = typeof b.message === "string" ? b.message : typeof body === "string" && body ? body.slice(0, 500) : `HTTP ${status}`;
    super(`${request}: ${status} ${message}`);
    this.status = status;
    this.code = typeof b.code === "number" ? b.code : status;
    this.error_id = typeof b.error_id === "string" ? b.error_id : undefined;
    this.details = Array.isArray(b.details) ? b.details : undefined;
    this.oauthError = typeof b.error === "string" ? b.error : undefined;
    this.requestId = response.headers.get("X-Request-Id") ?? undefined;
    this.request = request;
    this.apiMessage = message;
    this.rateLimit =
      status === 429
        ? { limitedBy: (response.headers.get("X-Service-Rate-Exceeded") as LimitedBy | null) ?? undefined, retryAfterMs: retryAfterMs(response.headers) }
        : undefined;
  }
}

/** No answer from the service (connection refused or reset, DNS, timeout) after the retries allowed. */
export class PathwiseNetworkError extends Error {
  override readonly name = "PathwiseNetworkError";
  constructor(
    readonly request: string,
    override readonly cause: unknown,
  ) {
    super(`${request}: no response (${cause instanceof Error ? cause.message : String(cause)})`);
  }
}

export const isPathwiseError = (e: unknown): e is PathwiseError => e instanceof PathwiseError;

/** Retry-After in ms (delta-seconds or an HTTP date), undefined when absent or unreadable. */
export function retryAfterMs(headers: Pick<Headers, "get">, now = Date.now()): number | undefined {
  const v = headers.get("Retry-After");
  if (v === null) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
