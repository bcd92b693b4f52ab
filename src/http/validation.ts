import type { Hook } from "@hono/zod-openapi";
import { ApiError } from "../errors";
import type { ErrorDetail } from "../schemas/common";
import { isLimitIssue } from "../schemas/limit-checks";
import type { AppEnv } from "./app-env";

const TARGET_NAMES: Record<string, string> = { json: "body", query: "query", param: "path", header: "header", form: "body" };

interface Issue {
  path: PropertyKey[];
  message: string;
  code?: string;
  params?: Record<string, unknown>;
  /** an invalid_union's issues per member, paths relative to the union */
  errors?: Issue[][];
}

const wrongShape = (issues: Issue[]) => issues.length === 1 && issues[0]?.code === "invalid_type" && issues[0].path.length === 0;

/**
 * A union (xAPI: one statement or an array) that fails reports the problems of the member whose
 * shape was sent (an object: the statement's; an array: its elements'), not "Invalid input".
 */
function expandUnions(issues: readonly Issue[]): Issue[] {
  return issues.flatMap((issue) => {
    const members = issue.code === "invalid_union" ? (issue.errors ?? []).filter((m) => !wrongShape(m)) : [];
    if (members.length !== 1) return [issue];
    return expandUnions(members[0] as Issue[]).map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }));
  });
}

/** `body.events[3].module_id` style paths (docs/api-conventions.md "HTTP conventions"). */
export function issuePath(target: string, path: PropertyKey[]): string {
  let out = TARGET_NAMES[target] ?? target;
  for (const part of path) out += typeof part === "number" ? `[${part}]` : `.${String(part)}`;
  return out;
}

export function issuesToDetails(target: string, issues: readonly Issue[]): ErrorDetail[] {
  return expandUnions(issues).map((issue) => ({ path: issuePath(target, issue.path), message: issue.message }));
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
