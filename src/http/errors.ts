import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

import { REGISTRATION_ERASED } from "../objects/registration/erasure";
import type { ErrorBody, ErrorDetail } from "../schemas/common";

/** The one error type of the service: thrown anywhere, rendered by `onError` as the decided JSON body. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const badRequest = (message: string, details?: ErrorDetail[]) => new ApiError(400, message, details);
export const unauthorized = (message = "Missing, malformed, unknown or expired access token.") =>
  new ApiError(401, message, undefined, { "WWW-Authenticate": 'Bearer realm="pathwise"' });
export const forbidden = (message = "The caller is not allowed to perform this request.") => new ApiError(403, message);
export const notFound = (what = "Resource") => new ApiError(404, `${what} not found.`);
export const unprocessable = (message: string, details?: ErrorDetail[]) => new ApiError(422, message, details);

/** Seconds a client waits before retrying after a 503 (the dependencies recover in moments or not soon). */
const RETRY_AFTER_SECONDS = 1;

/**
 * 503 with Retry-After: a dependency of the request (a Durable Object, D1) failed or could not be
 * reached, so the request was not completed; retrying is safe (with its Idempotency-Key for events).
 */
export function serviceUnavailable(message: string, cause?: unknown): ApiError {
  const error = new ApiError(503, message, undefined, { "Retry-After": String(RETRY_AFTER_SECONDS) });
  if (cause !== undefined) error.cause = cause;
  return error;
}

/**
 * Whether an error says the platform found a dependency temporarily unavailable: Durable Object and
 * storage errors carry `retryable` / `overloaded` flags (Cloudflare's documented error properties).
 */
function isTransient(err: unknown): boolean {
  const flags = err as { retryable?: unknown; overloaded?: unknown } | null;
  if (typeof flags === "object" && flags !== null && (flags.retryable === true || flags.overloaded === true)) return true;
  // A registration erased while the request ran (a class page listed it just before): the retry no longer sees it.
  return err instanceof Error && err.message === REGISTRATION_ERASED;
}

export function errorResponse(c: Context, error: ApiError, errorId = crypto.randomUUID()): Response {
  const body: ErrorBody = { code: error.status, message: error.message, error_id: errorId };
  if (error.details?.length) body.details = error.details;
  for (const [name, value] of Object.entries(error.headers ?? {})) c.header(name, value);
  return c.json(body, error.status);
}

/** What the logs get for a 5xx: its error_id, the request id, the route and the cause (never the client). */
function logFailure(c: Context, errorId: string, err: unknown): void {
  const cause = err instanceof ApiError && err.cause !== undefined ? err.cause : err;
  console.error(
    JSON.stringify({
      error_id: errorId,
      request_id: c.get("requestId"),
      route: `${c.req.method} ${c.req.path}`,
      error: String(err instanceof Error ? (err.stack ?? err) : err),
      ...(cause !== err ? { cause: String(cause instanceof Error ? (cause.stack ?? cause) : cause) } : {}),
    }),
  );
}

/**
 * Hono `onError`: known errors become their body; anything else is logged with its error_id and
 * hidden: a 503 with Retry-After when the platform marked it transient, else a 500.
 */
export function onError(err: Error, c: Context): Response {
  const errorId = crypto.randomUUID();
  if (err instanceof ApiError) {
    // 501 (a feature not offered, such as xAPI voiding) is an answer, not a failure.
    if (err.status >= 500 && err.status !== 501) logFailure(c, errorId, err);
    return errorResponse(c, err, errorId);
  }
  if (err instanceof HTTPException) {
    // A body in another media type than the route declares is malformed input (decisions.md: 400), not 415.
    if (err.status === 415) {
      const message = "Send the request body as application/json (Content-Type header).";
      return errorResponse(c, badRequest(message, [{ path: "header.content-type", message: "unsupported media type" }]), errorId);
    }
    return errorResponse(c, new ApiError(err.status as ContentfulStatusCode, err.message || "Request refused."), errorId);
  }
  logFailure(c, errorId, err);
  if (isTransient(err)) return errorResponse(c, serviceUnavailable("A storage service is temporarily unavailable; retry shortly."), errorId);
  return errorResponse(c, new ApiError(500, "Internal error. Quote the error_id when reporting it."), errorId);
}

export function onNotFound(c: Context): Response {
  return errorResponse(c, new ApiError(404, `No route for ${c.req.method} ${new URL(c.req.url).pathname}.`));
}
