import { z } from "@hono/zod-openapi";
import { notFound } from "../errors";
import { apiRoute } from "../http/define-route";
import { createRouter } from "../http/router";
import { json, uuidParams } from "../schemas/common";
import { AccountExportSchema, ExportQuery, XapiStatementSchema } from "../schemas/data-lifecycle";
import { findAccount } from "../services/accounts";
import { startExport } from "../services/export/start";
import { accountSubject, authorize } from "./authorize";

const exportRoute = apiRoute({
  method: "get",
  path: "/v0/accounts/{account_id}/export",
  operationId: "exportAccount",
  tags: ["Data lifecycle"],
  summary: "Export an account's data (streamed JSON, or xAPI statements)",
  description:
    'The account, its registrations, their goal assignments, every stored event as received, current per-objective beliefs with intervals and goal statuses, as one JSON document streamed as it is read (a learner with 100,000 events is never held in memory). `?format=xapi`: the events as a JSON array of xAPI 1.0.3 statements any LRS accepts (docs/privacy.md "Export"). Recorded in GET /v0/data-requests. Partner admin only.',
  request: { params: uuidParams("account_id"), query: ExportQuery },
  responses: {
    200: json(z.union([AccountExportSchema, z.array(XapiStatementSchema)]), "The export (format json: AccountExport; format xapi: an array of statements)"),
  },
});

export const exportsRouter = createRouter().openapi(exportRoute, async (c) => {
  const account = await findAccount(c.get("db"), c.req.valid("param").account_id);
  if (!account) throw notFound("Account");
  await authorize(c, accountSubject(account));
  const { format } = c.req.valid("query");
  const caller = c.get("caller");
  const stream = await startExport(c.env, c.get("db"), account, {
    format,
    origin: new URL(c.req.url).origin,
    requester: { accountId: caller.accountId, requestId: c.get("requestId") },
    waitUntil: (p) => c.executionCtx.waitUntil(p),
  });
  const name = `pathwise-account-${account.id}${format === "xapi" ? "-xapi" : ""}.json`;
  return c.body(stream, 200, { "Content-Type": "application/json; charset=utf-8", "Content-Disposition": `attachment; filename="${name}"` }) as never;
});
