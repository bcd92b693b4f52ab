import type { Context } from "hono";
import { ApiError, badRequest } from "../errors";
import type { AppEnv } from "../http/app-env";
import { apiRoute } from "../http/define-route";
import { createRouter } from "../http/router";
import { type ErrorDetail, json, jsonBody, noContent, refusal } from "../schemas/common";
import { PostStatementsBody, PutStatementQuery, type Statement, StatementIdsSchema, StatementSchema, XAPI_VERSION, XapiVersionHeader } from "../schemas/xapi";
import { claimStatements, ingestStatements, statementTargets, unknownModules } from "../services/xapi";
import { type MappedStatement, mapStatement, statementFingerprint } from "../services/xapi-mapping";
import { authorize, registrationSubject } from "./authorize";

const DOC = "docs/xapi.md";
const CONTRACT = `Each statement becomes a graded event (\`result.success\` present) or an ungraded event on the module \`object.id\` names, for the registration \`context.registration\` names; \`actor.account.name\` must be that registration's account \`external_user_id\` (the mapping: ${DOC}). The statements are validated together and stored all or nothing, and applied to the learner model before the answer, exactly as event posts. A statement id is stored once: the same statement sent again changes nothing, the same id with another statement is 409. Refusals name each statement's problem in \`details\` (\`body[3].object.id\`). Voiding is 501; the statement query API and the document resources answer 501 too.`;
const RATE = "Each request counts once in the batch-events window of every registration its statements name (15 a minute per token and registration).";

const conflict = refusal("A statement id was already used for a different statement (details name it); nothing was stored");
const unsupported = refusal("Voiding statements are not supported (details name them); nothing was stored");

const postRoute = apiRoute({
  method: "post",
  path: "/v0/xapi/statements",
  operationId: "postXapiStatements",
  tags: ["xAPI"],
  summary: "Send xAPI statements",
  description: `One xAPI 1.0.x statement or an array of up to 500 (xAPI 7.2.2); answers their ids in order. ${CONTRACT} ${RATE}`,
  request: { headers: XapiVersionHeader, body: jsonBody(PostStatementsBody) },
  responses: { 200: json(StatementIdsSchema, "Stored (or already stored): the statement ids, in the order sent"), 409: conflict, 501: unsupported },
});

const putRoute = apiRoute({
  method: "put",
  path: "/v0/xapi/statements",
  operationId: "putXapiStatement",
  tags: ["xAPI"],
  summary: "Send one xAPI statement with its id",
  description: `One xAPI 1.0.x statement whose id is \`statementId\` (xAPI 7.2.1; a different \`id\` in the body is 400). ${CONTRACT} ${RATE}`,
  request: { headers: XapiVersionHeader, query: PutStatementQuery, body: jsonBody(StatementSchema) },
  responses: { 204: noContent, 409: conflict, 501: unsupported },
});

/** Maps, checks and stores the statements (all or nothing); their ids in order. */
async function acceptStatements(c: Context<AppEnv>, statements: Statement[], at: (i: number) => string): Promise<string[]> {
  const nowMs = Date.now();
  const db = c.get("db");
  const caller = c.get("caller");
  const mapped: MappedStatement[] = [];
  const problems: ErrorDetail[] = [];
  const voiding: ErrorDetail[] = [];
  statements.forEach((statement, i) => {
    const result = mapStatement(statement, at(i), nowMs, () => crypto.randomUUID());
    if (result.ok) mapped.push(result.statement);
    else (result.unsupported ? voiding : problems).push(...result.details);
  });
  if (voiding.length) throw new ApiError(501, "Voiding statements are not supported (docs/xapi.md); nothing was stored.", voiding);
  const seen = new Set<string>();
  for (const s of mapped) {
    if (seen.has(s.id)) problems.push({ path: `${s.at}.id`, message: "the same statement id appears twice in the request" });
    seen.add(s.id);
  }
  if (problems.length) throw badRequest("The statements cannot be taken in; see details. Nothing was stored.", problems);

  const targets = await statementTargets(db, [...new Set(mapped.map((s) => s.registrationId))]);
  const unknown = mapped
    .filter((s) => targets.get(s.registrationId)?.registration.partnerId !== caller.partnerId)
    .map((s) => ({ path: `${s.at}.context.registration`, message: "names no registration of this partner" }));
  if (unknown.length) throw badRequest("The statements cannot be taken in; see details. Nothing was stored.", unknown);
  // The caller rule of the event endpoints (admin, or the registration's owner), on each registration named.
  for (const target of targets.values()) await authorize(c, registrationSubject(target.registration));
  const actors = mapped
    .filter((s) => targets.get(s.registrationId)?.externalUserId !== s.actorName)
    .map((s) => ({ path: `${s.at}.actor.account.name`, message: "is not the external_user_id of the registration's account" }));
  const modules = await unknownModules(db, mapped, targets);
  if (actors.length || modules.length) throw badRequest("The statements cannot be taken in; see details. Nothing was stored.", [...actors, ...modules]);

  // Every statement mapped (any problem was thrown above), so mapped[k] is statements[k].
  await Promise.all(
    mapped.map(async (s, k) => {
      if (s.event.statement) s.event.statement.fingerprint = await statementFingerprint({ ...(statements[k] as Statement), id: s.id });
    }),
  );
  await claimStatements(db, caller.partnerId, mapped, nowMs);
  await ingestStatements(c.env, mapped, targets, nowMs);
  return mapped.map((s) => s.id);
}

const NOT_SUPPORTED: [RegExp, string][] = [
  [
    /^\/v0\/xapi\/statements\/?$/,
    "The xAPI statement query API (GET) is not supported: Pathwise takes statements in; read what they changed through recommendations and analytics.",
  ],
  [/^\/v0\/xapi\/(activities|agents)(\/|$)/, "xAPI documents (state, activity and agent profiles) and the activities and agents resources are not supported."],
];

/**
 * xAPI statements in (docs/xapi.md): POST and PUT /v0/xapi/statements. The rest of the xAPI
 * resources answer 501 with what is not supported, and `about` the versions spoken (unauthenticated,
 * as xAPI defines it). Every answer under /v0/xapi carries X-Experience-API-Version.
 */
const router = createRouter();
router.use("/v0/xapi/*", async (c, next) => {
  await next();
  c.res.headers.set("X-Experience-API-Version", XAPI_VERSION);
});

export const xapiRouter = router
  .openapi(postRoute, async (c) => {
    const body = c.req.valid("json");
    const list = Array.isArray(body) ? body : [body];
    const ids = await acceptStatements(c, list, (i) => (Array.isArray(body) ? `body[${i}]` : "body"));
    return c.json(ids, 200);
  })
  .openapi(putRoute, async (c) => {
    const { statementId } = c.req.valid("query");
    const statement = c.req.valid("json");
    if (statement.id !== undefined && statement.id !== statementId) {
      throw badRequest("The statement's id differs from statementId.", [{ path: "body.id", message: "must equal the statementId query parameter" }]);
    }
    await acceptStatements(c, [{ ...statement, id: statementId }], () => "body");
    return c.body(null, 204);
  });

// Registered after the statement routes, outside the typed chain (they are not in the API document).
xapiRouter.get("/v0/xapi/about", (c) => c.json({ version: [XAPI_VERSION] }, 200));
xapiRouter.all("/v0/xapi/*", (c) => {
  const path = new URL(c.req.url).pathname;
  const reason = NOT_SUPPORTED.find(([pattern]) => pattern.test(path))?.[1];
  if (!reason) throw new ApiError(404, `No xAPI resource ${path}; see ${DOC}.`);
  throw new ApiError(501, `${reason} See ${DOC}.`);
});
