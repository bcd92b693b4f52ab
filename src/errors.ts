import type { ContentfulStatusCode } from "hono/utils/http-status";

import type { ErrorDetail } from "./schemas/common";

/**
 * The one error type of the service: thrown by any layer that answers a request (services, the
 * HTTP plumbing, the routes), rendered by the HTTP layer's `onError` as the decided JSON body
 * (src/http/errors.ts). It sits below them all so that a use case never imports the HTTP layer.
 */
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
 * The message of the RegistrationObject's `RegistrationErased` (src/objects/registration/erasure.ts),
 * thrown by a read that raced the registration's erasure. RPC keeps an error's message, not its
 * class, so `onError` (src/http/errors.ts) recognises it by this message and answers 503, retry.
 */
export const REGISTRATION_ERASED = "The registration has been erased.";
