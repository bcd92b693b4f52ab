import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

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

export function errorResponse(c: Context, error: ApiError, errorId = crypto.randomUUID()): Response {
  const body: ErrorBody = { code: error.status, message: error.message, error_id: errorId };
  if (error.details?.length) body.details = error.details;
  for (const [name, value] of Object.entries(error.headers ?? {})) c.header(name, value);
  return c.json(body, error.status);
}

/** Hono `onError`: known errors become their body; anything else is logged with its error_id and hidden. */
export function onError(err: Error, c: Context): Response {
  const errorId = crypto.randomUUID();
  if (err instanceof ApiError) {
    if (err.status >= 500) console.error(JSON.stringify({ error_id: errorId, error: String(err.stack ?? err) }));
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
  console.error(JSON.stringify({ error_id: errorId, error: String(err.stack ?? err) }));
  return errorResponse(c, new ApiError(500, "Internal error. Quote the error_id when reporting it."), errorId);
}

export function onNotFound(c: Context): Response {
  return errorResponse(c, new ApiError(404, `No route for ${c.req.method} ${new URL(c.req.url).pathname}.`));
}
