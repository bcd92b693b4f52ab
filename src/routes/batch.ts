import { z } from "@hono/zod-openapi";
import { authorize } from "../http/authorize";
import { apiRoute } from "../lib/define-route";
import { createRouter } from "../lib/router";
import { createAccount } from "../services/accounts";
import { ExternalUserId } from "./accounts";
import { json, jsonBody } from "./common.schemas";

const BatchEntry = z.object({
  method: z.string().refine((m) => m.toLowerCase() === "post", { message: "must be 'post'" }),
  relative_url: z.string().refine((u) => u.replace(/^\/v0/, "") === "/accounts", { message: "must be '/accounts'" }),
  body: z.object({ external_user_id: ExternalUserId }),
});

const BatchBody = z.object({ requests: z.array(BatchEntry).min(1).max(50, { message: "at most 50 entries" }) }).openapi("AccountsBatch");

const BatchResult = z
  .object({
    responses: z.array(
      z.object({
        code: z.number().int(),
        body: z.union([
          z.object({ account_id: z.string().uuid(), external_user_id: z.string() }),
          z.object({ code: z.number().int(), error_message: z.string() }),
        ]),
      }),
    ),
  })
  .openapi("AccountsBatchResult");

const batchRoute = apiRoute({
  method: "post",
  path: "/v0/batch",
  tags: ["Accounts"],
  summary: "Create up to 50 accounts (deprecated); each entry succeeds or fails on its own",
  request: { body: jsonBody(BatchBody) },
  responses: { 200: json(BatchResult, "One result per request entry, in order") },
});

export const batchRouter = createRouter().openapi(batchRoute, async (c) => {
  await authorize(c);
  const { requests } = c.req.valid("json");
  const db = c.get("db");
  const partnerId = c.get("caller").partnerId;
  // In order, one at a time: a repeated external_user_id within the batch fails on its second use.
  const responses: z.infer<typeof BatchResult>["responses"] = [];
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
