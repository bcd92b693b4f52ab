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
  /** a too_big issue's bound */
  maximum?: number | bigint;
  /** a too_small issue's bound */
  minimum?: number | bigint;
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

const tighter = (a: Issue, b: Issue) => (a.code === "too_big" ? Number(a.maximum) < Number(b.maximum) : Number(a.minimum) > Number(b.minimum));

/**
 * One detail per problem. zod runs every check of a field, so a field can fail two checks for one
 * reason: 1e20 for `z.number().int().max(100)` breaks both int's safe-integer bound and the max. Of
 * the bounds one value breaks the tightest is kept (it states the field's own limit), and a detail
 * repeated word for word is listed once.
 */
export function issuesToDetails(target: string, issues: readonly Issue[]): ErrorDetail[] {
  const kept = new Map<string, { issue: Issue; detail: ErrorDetail }>();
  for (const issue of expandUnions(issues)) {
    const path = issuePath(target, issue.path);
    const bound = issue.code === "too_big" || issue.code === "too_small";
    const key = bound ? `${path} ${issue.code}` : `${path} ${issue.message}`;
    const seen = kept.get(key);
    if (!seen || (bound && tighter(issue, seen.issue))) kept.set(key, { issue, detail: { path, message: issue.message } });
  }
  return [...kept.values()].map(({ detail }) => detail);
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
