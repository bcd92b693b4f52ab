import { z } from "@hono/zod-openapi";

export const TokenRequest = z
  .object({
    grant_type: z.enum(["client_credentials", "refresh_token"]),
    scope: z
      .string()
      .optional()
      .openapi({ description: "client_credentials: the external_user_id the token acts for (the partner admin's for an admin token)" }),
    refresh_token: z.string().optional().openapi({ description: "refresh_token grant: the refresh token to spend" }),
  })
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
