import type { Hook } from "@hono/zod-openapi";
import type { ErrorDetail } from "../schemas/common";
import { isLimitIssue } from "../schemas/limit-checks";
import type { AppEnv } from "./app-env";
import { ApiError } from "./errors";

const TARGET_NAMES: Record<string, string> = { json: "body", query: "query", param: "path", header: "header", form: "body" };

interface Issue {
  path: PropertyKey[];
  message: string;
  code?: string;
  params?: Record<string, unknown>;
}

/** `body.events[3].module_id` style paths, as decisions.md shows. */
export function issuePath(target: string, path: PropertyKey[]): string {
  let out = TARGET_NAMES[target] ?? target;
  for (const part of path) out += typeof part === "number" ? `[${part}]` : `.${String(part)}`;
  return out;
}

export function issuesToDetails(target: string, issues: readonly Issue[]): ErrorDetail[] {
  return issues.map((issue) => ({ path: issuePath(target, issue.path), message: issue.message }));
}

/**
 * A zod validation failure becomes a 400 with one detail per problem; a request whose only problems
 * are limits marked as 422 limits (src/schemas/limit-checks.ts) is a 422 naming them.
 */
export const validationHook: Hook<unknown, AppEnv, string, unknown> = (result) => {
  if (result.success) return;
  const issues = result.error.issues as readonly Issue[];
  const details = issuesToDetails(result.target, issues);
  if (issues.every(isLimitIssue)) throw new ApiError(422, `Over a limit of this endpoint: ${issues[0]?.message} (see details).`, details);
  // A path id that is not a UUID is a 400 like any other malformed input.
  throw new ApiError(400, "The request is not valid; see details.", details);
};
