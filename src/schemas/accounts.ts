import { z } from "@hono/zod-openapi";
import { ACCOUNTS_BATCH_MAX } from "./limits";
import { identifierText } from "./text";

export const ExternalUserId = identifierText
  .min(1)
  .max(255)
  .openapi({ description: "Anonymized id chosen by the partner; no personal data (e-mail addresses are refused).", example: "student-4711" });

export const AccountSchema = z
  .object({
    id: z.string().uuid(),
    external_user_id: z.string(),
    entitlements: z.array(z.string()).optional(),
  })
  .openapi("Account");

export const CreateAccountBody = z.object({ external_user_id: ExternalUserId }).openapi("CreateAccount");
export const CreatedAccount = z.object({ id: z.string().uuid(), external_user_id: z.string() }).openapi("CreatedAccount");

/** POST /v0/batch (deprecated): account creations, each succeeding or failing on its own. */
const BatchEntry = z.object({
  method: z.string().regex(/^[Pp][Oo][Ss][Tt]$/, { message: "must be 'post'" }),
  relative_url: z.string().regex(/^(\/v0)?\/accounts$/, { message: "must be '/accounts'" }),
  body: z.object({ external_user_id: ExternalUserId }),
});

export const AccountsBatchBody = z
  .object({
    requests: z
      .array(BatchEntry)
      .min(1)
      .max(ACCOUNTS_BATCH_MAX, { message: `at most ${ACCOUNTS_BATCH_MAX} entries` }),
  })
  .openapi("AccountsBatch");

export const AccountsBatchResult = z
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

export type AccountView = z.infer<typeof AccountSchema>;
