import { z } from "@hono/zod-openapi";
import { ExternalUserId } from "./accounts";

/** The token endpoint's form body (documentation: the endpoint parses its own form to answer RFC 6749 errors). */
export const TokenRequest = z
  .discriminatedUnion("grant_type", [
    z
      .object({
        grant_type: z.literal("client_credentials"),
        scope: ExternalUserId.openapi({ description: "The external_user_id the token acts for (the partner admin's for an admin token)" }),
      })
      .openapi("ClientCredentialsGrant"),
    z
      .object({
        grant_type: z.literal("refresh_token"),
        refresh_token: z.string().min(1).max(200).openapi({ description: "The refresh token to spend (each works once)" }),
      })
      .openapi("RefreshTokenGrant"),
  ])
  .openapi("TokenRequest");

export const TokenResponseSchema = z
  .object({
    access_token: z.string(),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int(),
    refresh_token: z.string(),
    scope: z.string(),
    account_id: z.string().uuid(),
    expires_at: z.string(),
  })
  .openapi("TokenResponse");

export const OAuthErrorBody = z
  .object({
    error: z.enum(["invalid_request", "invalid_client", "invalid_grant", "unsupported_grant_type", "invalid_scope"]),
    error_description: z.string(),
    code: z.number().int(),
    message: z.string(),
    error_id: z.string().uuid(),
  })
  .openapi("OAuthError");

export type TokenResponse = z.infer<typeof TokenResponseSchema>;
