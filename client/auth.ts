import { PathwiseError } from "./errors";
import type { components } from "./schema";

export type TokenResponse = components["schemas"]["TokenResponse"];

/** The partner's OAuth client (spec section 5): HTTP Basic on POST /v0/oauth/token. */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** Sends one token-endpoint request (the client's transport: pacing and 429 retries included). */
export type TokenRequester = (form: Record<string, string>, authorization: string) => Promise<TokenResponse>;

interface Entry {
  accessToken: string;
  refreshToken: string | undefined;
  /** ms since the epoch */
  expiresAt: number;
  lifetimeMs: number;
}

export interface TokenCacheOptions {
  /** renew this long before expires_at (default: 5 minutes, at most half the token's lifetime) */
  renewBeforeMs?: number;
  now?: () => number;
}

/**
 * Access tokens per scope (the partner admin's external_user_id, or an end user's: spec 5.8).
 * A token is fetched once and shared by concurrent callers; it is renewed before it expires and after
 * the service answered 401 to it. Renewal spends the refresh token (refresh grant); when that is
 * refused (spent, expired, revoked) it falls back to the client-credentials grant.
 */
export class TokenCache {
  private readonly entries = new Map<string, Promise<Entry>>();
  private readonly renewBeforeMs: number;
  private readonly now: () => number;

  constructor(
    private readonly credentials: ClientCredentials,
    private readonly request: TokenRequester,
    options: TokenCacheOptions = {},
  ) {
    this.renewBeforeMs = options.renewBeforeMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
  }

  /** A live access token for the scope. */
  async token(scope: string): Promise<string> {
    let pending = this.entries.get(scope);
    if (pending) {
      const entry = await pending.catch(() => undefined);
      if (entry && !this.due(entry)) return entry.accessToken;
      // several callers may see the same due entry: only the first replaces it
      if (this.entries.get(scope) === pending) this.entries.set(scope, this.renew(scope, entry));
      pending = this.entries.get(scope)!;
    } else {
      pending = this.issue(scope);
      this.entries.set(scope, pending);
    }
    try {
      return (await pending).accessToken;
    } catch (error) {
      if (this.entries.get(scope) === pending) this.entries.delete(scope);
      throw error;
    }
  }

  /** The service refused this token (401): the next `token(scope)` renews it, unless that already happened. */
  async invalidate(scope: string, accessToken: string): Promise<void> {
    const pending = this.entries.get(scope);
    const entry = await pending?.catch(() => undefined);
    if (pending && entry?.accessToken === accessToken && this.entries.get(scope) === pending) {
      this.entries.set(scope, this.renew(scope, entry));
    }
  }

  private due(entry: Entry): boolean {
    const margin = Math.min(this.renewBeforeMs, entry.lifetimeMs / 2);
    return this.now() >= entry.expiresAt - margin;
  }

  private basic(): string {
    const raw = `${this.credentials.clientId}:${this.credentials.clientSecret}`;
    return `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(raw)))}`;
  }

  private async issue(scope: string): Promise<Entry> {
    return this.entry(await this.request({ grant_type: "client_credentials", scope }, this.basic()));
  }

  private async renew(scope: string, old: Entry | undefined): Promise<Entry> {
    // The refresh grant first. A disabled account's refresh token is refused too, and the
    // client-credentials grant then says why (invalid_scope).
    if (old?.refreshToken) {
      try {
        return this.entry(await this.request({ grant_type: "refresh_token", refresh_token: old.refreshToken }, this.basic()));
      } catch (error) {
        if (!(error instanceof PathwiseError) || error.status >= 500 || error.status === 429) throw error;
        // invalid_grant (spent, expired or revoked): a new token from the client credentials below
      }
    }
    return this.issue(scope);
  }

  private entry(t: TokenResponse): Entry {
    const lifetimeMs = t.expires_in * 1000;
    const parsed = Date.parse(t.expires_at);
    return {
      accessToken: t.access_token,
      refreshToken: t.refresh_token,
      // the earlier of the two: a client clock ahead of the service's renews early rather than late
      expiresAt: Math.min(this.now() + lifetimeMs, Number.isNaN(parsed) ? Number.POSITIVE_INFINITY : parsed),
      lifetimeMs,
    };
  }
}
