import { z } from "@hono/zod-openapi";
import type { Db } from "../db/client";
import { authorize } from "../http/authorize";
import { apiRoute } from "../http/define-route";
import { notFound, unprocessable } from "../http/errors";
import { createRouter } from "../http/router";
import { AccountSchema, CreateAccountBody, CreatedAccount } from "../schemas/accounts";
import { json, jsonBody, noContent, uuidParams } from "../schemas/common";
import { accountView, accountViewById, createAccountOrThrow, disableAccount, findAccount } from "../services/accounts";

const createAccountRoute = apiRoute({
  method: "post",
  path: "/v0/accounts",
  tags: ["Accounts"],
  summary: "Create an account (an end user)",
  request: { body: jsonBody(CreateAccountBody) },
  responses: {
    201: json(CreatedAccount, "The new account"),
    422: json(z.any(), "external_user_id already used (also by a disabled account) or looks like an e-mail address"),
  },
});

const currentAccountRoute = apiRoute({
  method: "get",
  path: "/v0/accounts/current",
  tags: ["Accounts"],
  summary: "The caller's own account (checks the OAuth setup)",
  responses: { 200: json(AccountSchema, "The caller's account") },
});

const getAccountRoute = apiRoute({
  method: "get",
  path: "/v0/accounts/{account_id}",
  tags: ["Accounts"],
  summary: "Get an account",
  request: { params: uuidParams("account_id") },
  responses: { 200: json(AccountSchema, "The account") },
});

const deleteAccountRoute = apiRoute({
  method: "delete",
  path: "/v0/accounts/{account_id}",
  tags: ["Accounts"],
  summary: "Disable an account (its external_user_id is never released; its tokens stop working at once)",
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
    await authorize(c, { kind: "Account", partnerId: account.partnerId, ownerAccountId: account.id });
    return c.json(accountView(account), 200);
  })
  .openapi(deleteAccountRoute, async (c) => {
    const account = await requireAccount(c.get("db"), c.req.valid("param").account_id);
    await authorize(c, { kind: "Account", partnerId: account.partnerId, ownerAccountId: account.id });
    if (account.id === c.get("caller").accountId) throw unprocessable("The partner admin account cannot be disabled.");
    await disableAccount(c.env, c.get("db"), account);
    return c.body(null, 204);
  });
