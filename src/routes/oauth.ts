import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../http/app-env";
import { checkOperationDocs } from "../http/define-route";
import { ipLimit } from "../http/ip-limit";
import { createRouter } from "../http/router";
import { type FormResult, parseStrictForm } from "../lib/form";
import { decodeUtf8 } from "../lib/utf8";
import { ErrorSchema, json } from "../schemas/common";
import { MAX_LIVE_ACCESS_TOKENS_PER_ACCOUNT } from "../schemas/limits";
import { OAuthErrorBody, TokenRequest, type TokenResponse, TokenResponseSchema } from "../schemas/oauth";
import { authenticateClient, clientCredentialsGrant, OAuthError, refreshTokenGrant } from "../services/oauth";

const tokenRoute = createRoute({
  method: "post",
  path: "/v0/oauth/token",
  operationId: "createAccessToken",
  tags: ["Authentication"],
  summary: "Obtain an access token",
  description: [
    "OAuth 2.0 (RFC 6749): `grant_type=client_credentials` with the partner's client id and secret in HTTP Basic and `scope` = an account's `external_user_id` (the partner admin's for an admin token, an end user's for a token acting as that user), or `grant_type=refresh_token`.",
    "Form body (application/x-www-form-urlencoded, UTF-8; an ill-formed byte or percent-encoding is `400 invalid_request`).",
    `An account holds at most ${MAX_LIVE_ACCESS_TOKENS_PER_ACCOUNT} live access tokens. A request is never refused for that: a new token beyond the cap retires (revokes) the account's oldest live token, so cache a token and reuse it until it nears \`expires_at\` instead of requesting one per call.`,
    "A refresh_token grant spends the refresh token (each works once) and retires the access token that was issued with it: the new pair replaces the old one.",
  ].join("\n\n"),
  security: [{ Basic: [] }],
  request: { body: { required: true, content: { "application/x-www-form-urlencoded": { schema: TokenRequest } } } },
  responses: {
    200: json(TokenResponseSchema, "A new token pair"),
    400: json(OAuthErrorBody, "RFC 6749 error: invalid_request, invalid_grant, unsupported_grant_type, invalid_scope"),
    401: json(OAuthErrorBody, "RFC 6749 error: invalid_client"),
    429: json(ErrorSchema, "IP-based limit: the queue for this client IP and path is full (X-Service-Rate-Exceeded: ip-limited)"),
  },
});

function oauthError(c: Context<AppEnv>, error: OAuthError): Response {
  const errorId = crypto.randomUUID();
  if (error.error === "invalid_client") c.header("WWW-Authenticate", 'Basic realm="pathwise"');
  return c.json({ error: error.error, error_description: error.description, code: error.status, message: error.description, error_id: errorId }, error.status);
}

/** The token request's form: application/x-www-form-urlencoded, UTF-8, each parameter once. */
async function tokenForm(c: Context<AppEnv>): Promise<FormResult> {
  const contentType = c.req.header("Content-Type") ?? "";
  if (!contentType.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    return { ok: false, message: "Send the body as application/x-www-form-urlencoded." };
  }
  const decoded = decodeUtf8(new Uint8Array(await c.req.arrayBuffer()));
  if (!decoded.ok) return { ok: false, message: `The form body is not valid UTF-8 (byte ${decoded.offset}).` };
  return parseStrictForm(decoded.text);
}

/**
 * The token endpoint parses its own form body so that every failure is an RFC 6749 error body:
 * the route is only registered for the OpenAPI document, not given zod validators.
 */
checkOperationDocs(tokenRoute);
export const oauthRouter = createRouter();
oauthRouter.openAPIRegistry.registerPath(tokenRoute);
oauthRouter.post(
  "/v0/oauth/token",
  // Unauthenticated: IP-based limit per (client IP, path), queueing beyond it (spec 8.1.1).
  ipLimit(),
  async (c) => {
    try {
      // The form is read before the client is authenticated, so a client-credentials grant reads
      // the client and the account it names in one query; an invalid client is still reported first.
      const form = await tokenForm(c);
      const params = form.ok ? form.params : new Map<string, string>();
      const grantType = params.get("grant_type");
      const scope = grantType === "client_credentials" ? params.get("scope") : undefined;
      const { partner, account } = await authenticateClient(c.get("db"), c.req.header("Authorization"), scope);
      if (!form.ok) throw new OAuthError("invalid_request", form.message);
      let tokens: TokenResponse;
      if (grantType === "client_credentials") {
        tokens = await clientCredentialsGrant(c.env, c.get("db"), c.get("config"), partner, scope, account);
      } else if (grantType === "refresh_token") {
        tokens = await refreshTokenGrant(c.env, c.get("db"), c.get("config"), partner, params.get("refresh_token"));
      } else if (!grantType) {
        throw new OAuthError("invalid_request", "grant_type is required.");
      } else {
        throw new OAuthError("unsupported_grant_type", "grant_type must be client_credentials or refresh_token.");
      }
      c.header("Pragma", "no-cache"); // Cache-Control: no-store is set on every /v0 response (security-headers.ts)
      return c.json(tokens, 200);
    } catch (error) {
      if (error instanceof OAuthError) return oauthError(c, error);
      throw error;
    }
  },
);
