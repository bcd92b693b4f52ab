import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError, badRequest, REGISTRATION_ERASED, serviceUnavailable } from "../errors";
import type { ErrorBody } from "../schemas/common";

/* How an error becomes a response: the decided JSON body, logging of failures. The errors themselves are src/errors.ts. */

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
    // A body in another media type than the route declares is malformed input (docs/api-conventions.md "HTTP conventions": 400), not 415.
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
