import { z } from "@hono/zod-openapi";
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from "./limits";

/** One problem of a refused request: where (`body.events[3].module_id`) and what. */
export const ErrorDetailSchema = z
  .object({
    path: z
      .string()
      .openapi({ description: "Where: `body.events[3].module_id`, `query.limit`, `header.idempotency-key`, `body[2].object.id`", example: "body.module_id" }),
    message: z.string().openapi({ description: "What is wrong there", example: "'mref-nope' is not a module of the graph" }),
  })
  .openapi("ErrorDetail");
export type ErrorDetail = z.infer<typeof ErrorDetailSchema>;

export const ErrorSchema = z
  .object({
    code: z.number().int(),
    message: z.string(),
    error_id: z.string().uuid(),
    details: z.array(ErrorDetailSchema).optional(),
  })
  .openapi("Error", {
    description:
      "Every refusal: `code` repeats the HTTP status, `message` is a sentence for a person, `error_id` is logged with the cause, `details` name the fields at fault (validation failures, unknown ids).",
    example: {
      code: 422,
      message: "Unrecognized module id(s): events are accepted on atoms of the learning instance's graph only.",
      error_id: "0b7e3c7a-3f7e-4a51-9a57-2d5f6f0c9b11",
      details: [{ path: "body.module_id", message: "'mref-nope' is not a module of the graph" }],
    },
  });
export type ErrorBody = z.infer<typeof ErrorSchema>;

const errorContent = { content: { "application/json": { schema: ErrorSchema } } };

/** A refusal a route documents beyond the common ones (422, 409, 501...): always the Error body. */
export const refusal = (description: string) => ({ description, ...errorContent });

export const errorResponses = {
  400: { description: "Malformed request (see details)", ...errorContent },
  401: { description: "Missing, malformed, unknown, expired or revoked access token", ...errorContent },
  403: { description: "The caller rule refuses this caller", ...errorContent },
  404: { description: "No such resource for this partner", ...errorContent },
  413: { description: "Body over 1 MiB", ...errorContent },
  429: {
    description: "Rate limit exceeded (docs/rate-limits.md); the request was not processed",
    headers: {
      "X-Service-Rate-Exceeded": { description: "Which limit refused the request: token-limited, partner-limited or ip-limited", schema: { type: "string" } },
      "Retry-After": { description: "Seconds until the request can be allowed again", schema: { type: "integer" } },
    },
    ...errorContent,
  },
  503: {
    description:
      "A dependency (token check, event store) was unavailable; nothing was done. Retry after Retry-After seconds (events: with the same Idempotency-Key)",
    headers: { "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer" } } },
    ...errorContent,
  },
} as const;

/** A UUID, lower-cased: ids are stored as generated (lower case) and clients may send either case. */
export const uuid = z.string().uuid({ message: "must be a UUID" }).toLowerCase();

/** The scoped-goal ids of an analytics request: 1 to `max` UUIDs. */
export const goalIdList = (max: number) =>
  z
    .array(uuid)
    .min(1)
    .max(max, { message: `at most ${max} goal ids per request` });

/** A goal id for request examples in the API reference (/docs). */
export const GOAL_ID_EXAMPLE = "5f0c1c9e-2a6b-4c1e-9d43-7f2b8e6a1d20";

/** Path parameters that must be UUIDs (anything else is a 400). */
export function uuidParams<K extends string>(name: K) {
  const field = uuid.openapi({ param: { name, in: "path" }, example: "1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed" });
  return z.object({ [name]: field } as Record<K, typeof field>);
}

/**
 * Every date and date-time the API takes lies in the years 1970 to 2100 (UTC; docs/security.md
 * "Controls"): anything else is a typo or a sentinel, and is refused with 400 in every field alike.
 */
export const DATE_RANGE = { fromMs: Date.UTC(1970, 0, 1), untilMs: Date.UTC(2101, 0, 1) } as const;
const RANGE_MESSAGE = "must lie between 1970-01-01T00:00:00Z and 2100-12-31T23:59:59Z";
const inDateRange = (v: string) => {
  const ms = Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v);
  return ms >= DATE_RANGE.fromMs && ms < DATE_RANGE.untilMs;
};
/** The year range as the document can state it (the instant itself, offset applied, is checked too). */
const YEARS = /^(19[7-9][0-9]|20[0-9][0-9]|2100)-/;

/**
 * An ISO 8601 date-time with an offset, in 1970..2100. Each check aborts the ones after it: zod runs
 * every check otherwise, and a year outside the range failed both the year pattern and the instant
 * check (the same detail twice), a non-date the range checks too.
 */
export const isoDateTime = z.iso
  .datetime({ offset: true, message: "must be an ISO 8601 date-time", abort: true })
  .regex(YEARS, { message: RANGE_MESSAGE, abort: true })
  .refine(inDateRange, { message: RANGE_MESSAGE })
  .openapi({ format: "date-time" });

/** An ISO 8601 calendar date (2027-01-04), in 1970..2100; aborting checks as isoDateTime's. */
export const isoDate = z.iso
  .date({ message: "must be an ISO 8601 date (2027-01-04)", abort: true })
  .regex(YEARS, { message: RANGE_MESSAGE, abort: true })
  .refine(inDateRange, { message: RANGE_MESSAGE })
  .openapi({ format: "date" });

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});

export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

export const noContent = { description: "Done; no body" };

export const pageQuery = z.object({
  offset: z.coerce
    .number()
    .int()
    .min(0)
    .default(0)
    .openapi({ param: { name: "offset", in: "query" } }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(LIST_LIMIT_MAX)
    .default(LIST_LIMIT_DEFAULT)
    .openapi({ param: { name: "limit", in: "query" } }),
});

/** The 422 of the analytics requests that name goals. */
export const unknownGoalRefused = refusal("A goal id names no scoped goal of the learning instance (details name it)");
