import type { z } from "@hono/zod-openapi";
import { apiRoute } from "../http/define-route";
import { createRouter } from "../http/router";
import { AccountsBatchBody, AccountsBatchResult } from "../schemas/accounts";
import { json, jsonBody } from "../schemas/common";
import { createAccount } from "../services/accounts";
import { authorize } from "./authorize";

const batchRoute = apiRoute({
  method: "post",
  path: "/v0/batch",
  tags: ["Accounts"],
  operationId: "batchCreateAccounts",
  summary: "Create up to 50 accounts (deprecated)",
  description:
    'Spec 4.2\'s batch form of POST /v0/accounts: each entry is `{method: "post", url: "/accounts", body}` and succeeds or fails on its own (per-entry 201 or 422 in `responses`, in request order). A structurally invalid entry fails the whole request with 400 before anything is created. Prefer one POST /v0/accounts per account.',
  request: { body: jsonBody(AccountsBatchBody) },
  responses: { 200: json(AccountsBatchResult, "One result per request entry, in order") },
});

export const batchRouter = createRouter().openapi(batchRoute, async (c) => {
  await authorize(c);
  const { requests } = c.req.valid("json");
  const db = c.get("db");
  const partnerId = c.get("caller").partnerId;
  // In order, one at a time: a repeated external_user_id within the batch fails on its second use.
  const responses: z.infer<typeof AccountsBatchResult>["responses"] = [];
  for (const entry of requests) {
    const result = await createAccount(db, partnerId, entry.body.external_user_id);
    responses.push(
      result.ok
        ? { code: 201, body: { account_id: result.account.id, external_user_id: result.account.externalUserId } }
        : { code: 422, body: { code: 422, error_message: result.message } },
    );
  }
  return c.json({ responses }, 200);
});
