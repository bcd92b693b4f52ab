import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import { callerRules, type Role, type RouteKey, routeKey } from "../http/caller-rules";
import { protect } from "../http/protect";
import { utf8Body } from "../http/utf8-body";
import { utf8Path } from "../http/utf8-path";
import { rateLimitFor } from "../rate-limits/table";
import { ErrorSchema, errorResponses } from "../schemas/common";

type Method = "get" | "post" | "put" | "delete";

/**
 * What every operation of the API document carries (docs/api-document.md): `operationId` becomes the
 * method name in clients generated from /v0/openapi.json, so it is verb-first lower camel case and
 * never changes once published; `summary` is one line for the reference's table of contents,
 * `description` the contract (limits, what each refusal means); one tag, defined in src/app.ts.
 */
export interface OperationDocs {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
}

/** Verb-first lower camel case: createAccount, listGraphs, postGradedEvent, eraseAccount, ... */
const OPERATION_ID = /^(create|get|list|update|delete|disable|post|put|validate|assign|unassign|erase|export|batch[A-Z][a-z]+)[A-Z][A-Za-z]*$/;

type Documented = Partial<OperationDocs> & { method: string; path: string; responses: Record<string | number, unknown> };

const jsonSchemaOf = (response: unknown): unknown => (response as { content?: Record<string, { schema?: unknown }> }).content?.["application/json"]?.schema;

/**
 * Refuses, at startup, an operation whose entry in the API document would be incomplete: no
 * verb-first operationId, no summary or description, not exactly one tag, or an error status
 * without a JSON body (a generated client could not type the refusal). apiRoute calls it, and so
 * do the routes that build their own (the token endpoint, xAPI's about).
 */
export function checkOperationDocs(config: Documented): void {
  const where = `${config.method.toUpperCase()} ${config.path}`;
  if (!config.operationId || !OPERATION_ID.test(config.operationId)) {
    throw new Error(`${where}: operationId '${config.operationId ?? ""}' is missing or not verb-first lower camel case.`);
  }
  if (!config.summary?.trim() || !config.description?.trim()) throw new Error(`${where}: a summary and a description are required.`);
  if (config.tags?.length !== 1) throw new Error(`${where}: exactly one tag is required.`);
  for (const [status, response] of Object.entries(config.responses)) {
    if (Number(status) >= 400 && !jsonSchemaOf(response)) throw new Error(`${where}: the ${status} response has no JSON error body.`);
  }
}

const ROLE_TEXT: Record<Role, string> = {
  admin: "the partner admin",
  owner: "the end user who owns the resource",
  instructor: "an instructor of the learning instance",
  member: "any end user registered in the learning instance",
  any: "any token of the partner",
};

/** The caller rule and the rate limit of a route, as the sentences its description ends with. */
function rulesText(key: RouteKey): string {
  const callers = `**Callers:** ${callerRules[key].map((role) => ROLE_TEXT[role]).join("; ")}.`;
  const rule = rateLimitFor(key);
  if (!rule) return callers;
  const per = rule.kind === "partner" ? "across all tokens of the partner" : "per access token and concrete path";
  const actions = rule.actions
    ? ` (${Object.entries(rule.actions)
        .map(([action, n]) => `\`${action}\` ${n}`)
        .join(", ")}, separate windows)`
    : "";
  return `${callers} **Rate limit:** ${rule.limit} requests a minute ${per}${actions} (docs/rate-limits.md).`;
}

/**
 * An authenticated API route: its path is under /v0, its caller rule is looked up in the
 * caller-rules table and its rate limit in src/rate-limits/table.ts (a missing row in either fails at
 * startup), and `protect` runs before validation, then
 * the UTF-8 checks of the path parameters and the body (so an unauthenticated request is 401
 * whatever its path or body). Every
 * error status answers the Error schema (a route's own ones with `refusal()`; checked at startup).
 * The description ends with the route's caller rule and rate limit, from their tables.
 */
export function apiRoute<const R extends Omit<RouteConfig, "method" | "middleware"> & OperationDocs & { method: Method; path: string }>(config: R) {
  const key: RouteKey = routeKey(config.method, config.path);
  const responses = { ...errorResponses, ...config.responses };
  checkOperationDocs({ ...config, responses });
  for (const [status, response] of Object.entries(config.responses)) {
    if (Number(status) >= 400 && jsonSchemaOf(response) !== ErrorSchema)
      throw new Error(`${key}: the ${status} response must be refusal(...) (the Error body).`);
  }
  return createRoute({
    ...config,
    description: `${config.description}\n\n${rulesText(key)}`,
    security: [{ Bearer: [] }],
    middleware: [protect(key), utf8Path(config.path), utf8Body()] as const,
    responses,
  });
}
