import type { Db } from "../db/client";
import { notFound, unprocessable } from "../errors";
import { apiRoute } from "../http/define-route";
import { createRouter } from "../http/router";
import { AccountSchema, CreateAccountBody, CreatedAccount } from "../schemas/accounts";
import { json, jsonBody, noContent, refusal, uuidParams } from "../schemas/common";
import { accountView, accountViewById, createAccountOrThrow, disableAccount, findAccount } from "../services/accounts";
import { accountSubject, authorize } from "./authorize";

const createAccountRoute = apiRoute({
  method: "post",
  path: "/v0/accounts",
  tags: ["Accounts"],
  operationId: "createAccount",
  summary: "Create an account",
  description:
    "Creates an account: an anonymized end user (learner or instructor) of the partner's application, known by the partner's `external_user_id` (1-255 characters, never an e-mail address). The id is unique within the partner for good: a disabled account keeps it (422 on reuse).",
  request: { body: jsonBody(CreateAccountBody) },
  responses: {
    201: json(CreatedAccount, "The new account"),
    422: refusal("external_user_id already used (also by a disabled account) or looks like an e-mail address"),
  },
});

const currentAccountRoute = apiRoute({
  method: "get",
  path: "/v0/accounts/current",
  tags: ["Accounts"],
  operationId: "getCurrentAccount",
  summary: "Get the caller's own account",
  description:
    "The account the access token acts for: the partner admin for an admin token, the end user for a token whose scope was their `external_user_id`. A cheap first call to check the OAuth setup.",
  responses: { 200: json(AccountSchema, "The caller's account") },
});

const getAccountRoute = apiRoute({
  method: "get",
  path: "/v0/accounts/{account_id}",
  tags: ["Accounts"],
  operationId: "getAccount",
  summary: "Get an account",
  description: "One account of the partner, with whether it is disabled. An account of another partner is 404.",
  request: { params: uuidParams("account_id") },
  responses: { 200: json(AccountSchema, "The account") },
});

const deleteAccountRoute = apiRoute({
  method: "delete",
  path: "/v0/accounts/{account_id}",
  tags: ["Accounts"],
  operationId: "disableAccount",
  summary: "Disable an account",
  description:
    "Disables the account: its access tokens stop working at once (401 from the next request on), it can no longer be registered, and its `external_user_id` is never released. The partner admin account cannot be disabled (422). Repeating the call is harmless (a retry finishes an interrupted revocation).",
  request: { params: uuidParams("account_id") },
  responses: { 204: noContent },
});

async function requireAccount(db: Db, id: string) {
  const account = await findAccount(db, id);
  if (!account) throw notFound("Account");
  return account;
}

export const accountsRouter = createRouter()
  .openapi(createAccountRoute, async (c) => {
    await authorize(c);
    const { external_user_id } = c.req.valid("json");
    const account = await createAccountOrThrow(c.get("db"), c.get("caller").partnerId, external_user_id);
    return c.json({ id: account.id, external_user_id: account.externalUserId }, 201);
  })
  .openapi(currentAccountRoute, async (c) => {
    await authorize(c);
    const view = await accountViewById(c.get("db"), c.get("caller").accountId);
    if (!view) throw notFound("Account");
    return c.json(view, 200);
  })
  .openapi(getAccountRoute, async (c) => {
    const account = await requireAccount(c.get("db"), c.req.valid("param").account_id);
    await authorize(c, accountSubject(account));
    return c.json(accountView(account), 200);
  })
  .openapi(deleteAccountRoute, async (c) => {
    const account = await requireAccount(c.get("db"), c.req.valid("param").account_id);
    await authorize(c, accountSubject(account));
    if (account.id === c.get("caller").accountId) throw unprocessable("The partner admin account cannot be disabled.");
    await disableAccount(c.env, c.get("db"), account);
    return c.body(null, 204);
  });
