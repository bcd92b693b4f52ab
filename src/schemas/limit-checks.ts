import { z } from "@hono/zod-openapi";

/**
 * Limits refused with 422 rather than 400 (src/schemas/limits.ts explains which): their zod issues
 * carry this mark, and the validation hook (src/http/validation.ts) answers 422 when every problem
 * of a request is one of them.
 */
const OVER_LIMIT = "over_limit";

/** A zod issue that says the request is over a documented limit (`message` names it). */
export function limitIssue(message: string, path: (string | number)[] = []) {
  return { code: "custom" as const, message, path, params: { [OVER_LIMIT]: true } };
}

export function isLimitIssue(issue: { code?: string; params?: Record<string, unknown> }): boolean {
  return issue.code === "custom" && issue.params?.[OVER_LIMIT] === true;
}

/** A list of at most `max` items, refused with 422 naming the limit beyond it; `maxItems` in the document. */
export function limitedList<T extends z.ZodType>(item: T, max: number, what: string) {
  return z
    .array(item)
    .superRefine((list, ctx) => {
      if (list.length > max) ctx.addIssue(limitIssue(`at most ${max} ${what} per request; this one has ${list.length}`));
    })
    .openapi({ maxItems: max });
}
