import type { Context } from "hono";
import type { ErasureRow } from "../db/schema";
import { notFound, unprocessable } from "../errors";
import type { AppEnv } from "../http/app-env";
import { apiRoute } from "../http/define-route";
import { createRouter } from "../http/router";
import { json, refusal, uuidParams } from "../schemas/common";
import { ErasureAcceptedSchema, ErasureReceiptSchema } from "../schemas/data-lifecycle";
import { erasureReceipt, findErasure } from "../services/erasure/receipt";
import { accountForErasure, type Subject as Erased, instanceForErasure, requestErasure } from "../services/erasure/request";
import { accountSubject, authorize, instanceSubject } from "./authorize";

const accepted = json(ErasureAcceptedSchema, "The erasure was recorded and runs in the background: poll GET /v0/erasures/{erasure_id} for the receipt");
const location = { Location: { description: "/v0/erasures/{erasure_id}: the receipt", schema: { type: "string" as const } } };

const eraseAccountRoute = apiRoute({
  method: "post",
  path: "/v0/accounts/{account_id}/erasure",
  operationId: "eraseAccount",
  tags: ["Data lifecycle"],
  summary: "Erase an account and all its registrations' data (asynchronous, with a receipt)",
  description:
    'Removes everything stored about the account and every registration of it, from every store (docs/privacy.md "Erasure"). The account and its registrations answer 404 at once; the work runs in the background and the receipt says `complete` once every store is done. The account row stays as a tombstone holding only a digest of its external_user_id, which is never given to another account. Repeating the request returns the same erasure (200 once complete). Partner admin only.',
  request: { params: uuidParams("account_id") },
  responses: {
    200: { ...json(ErasureAcceptedSchema, "The account's erasure is already complete (a repeated request)"), headers: location },
    202: { ...accepted, headers: location },
    422: refusal("The partner admin account cannot be erased"),
  },
});

const eraseInstanceRoute = apiRoute({
  method: "post",
  path: "/v0/learning-instances/{id}/erasure",
  operationId: "eraseLearningInstance",
  tags: ["Data lifecycle"],
  summary: "Erase a learning instance: its registrations' data, its goals and the instance (accounts stay)",
  description:
    "The same as an account erasure for every registration of the instance (deleted ones too), plus the instance's goals and their assignments; the instance row stays without its name and dates. The accounts stay; their account-level analytics are rebuilt from their other registrations. Repeating the request returns the same erasure. Partner admin only.",
  request: { params: uuidParams("id") },
  responses: {
    200: { ...json(ErasureAcceptedSchema, "The instance's erasure is already complete (a repeated request)"), headers: location },
    202: { ...accepted, headers: location },
  },
});

const receiptRoute = apiRoute({
  method: "get",
  path: "/v0/erasures/{erasure_id}",
  operationId: "getErasure",
  tags: ["Data lifecycle"],
  summary: "The receipt of an erasure",
  description:
    "`pending` until every store is done, then `complete` with `completed_at` and the count of what was removed per store (docs/privacy.md lists the stores). Partner admin only.",
  request: { params: uuidParams("erasure_id") },
  responses: { 200: json(ErasureReceiptSchema, "The receipt") },
});

/** 202 for a new or pending erasure, 200 for one already complete; Location names the receipt. */
function answer(c: Context<AppEnv>, erasure: ErasureRow) {
  c.header("Location", `/v0/erasures/${erasure.id}`);
  return { erasure_id: erasure.id, status: erasure.status };
}

async function erase(c: Context<AppEnv>, subject: Erased) {
  const caller = c.get("caller");
  const { erasure } = await requestErasure(c.env, c.get("db"), subject, { accountId: caller.accountId, requestId: c.get("requestId") });
  return answer(c, erasure);
}

export const erasuresRouter = createRouter()
  .openapi(eraseAccountRoute, async (c) => {
    const account = await accountForErasure(c.get("db"), c.req.valid("param").account_id);
    if (!account) throw notFound("Account");
    await authorize(c, accountSubject(account));
    if (account.id === c.get("caller").accountId) throw unprocessable("The partner admin account cannot be erased.");
    const body = await erase(c, { type: "account", row: account });
    return body.status === "complete" ? c.json(body, 200) : c.json(body, 202);
  })
  .openapi(eraseInstanceRoute, async (c) => {
    const instance = await instanceForErasure(c.get("db"), c.req.valid("param").id);
    if (!instance) throw notFound("Learning instance");
    await authorize(c, instanceSubject(instance));
    const body = await erase(c, { type: "learning_instance", row: instance });
    return body.status === "complete" ? c.json(body, 200) : c.json(body, 202);
  })
  .openapi(receiptRoute, async (c) => {
    const erasure = await findErasure(c.get("db"), c.req.valid("param").erasure_id);
    if (!erasure) throw notFound("Erasure");
    await authorize(c, { kind: "Erasure", partnerId: erasure.partnerId });
    return c.json(erasureReceipt(erasure), 200);
  });
