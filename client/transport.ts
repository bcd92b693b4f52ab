import { PathwiseError, PathwiseNetworkError, retryAfterMs } from "./errors";
import { type Pacer, sleep } from "./pacer";

/** What the transport needs to authenticate a request. */
export interface Authenticator {
  /** the `Authorization` header value for the next attempt */
  header(): Promise<string>;
  /** the service refused that header with 401: renew (true) or give up (false) */
  refused(header: string): Promise<boolean>;
}

export interface RetryOptions {
  /** further attempts after the first (default 5) */
  retries?: number;
  /** first backoff step (default 500 ms); step n waits up to base · 2^n, with full jitter */
  baseDelayMs?: number;
  /** no single wait is longer (default 60 s) */
  maxDelayMs?: number;
}

export type FetchFn = (request: Request) => Promise<Response>;

export interface Transport {
  send(request: Request, auth: Authenticator | undefined): Promise<Response>;
}

const EVENT_POST = /^\/v0\/registrations\/[^/]+\/(graded|ungraded|recommendation-followed|focus|batch)-events$/;
/** POSTs that only read: a repeat is harmless, so they are retried after a network error or a 5xx. */
const READ_POST = /^\/v0\/(learning-instances|registrations|accounts)(\/[^/]+)?\/metrics\/|^\/v0\/graphs\/validate$|^\/v0\/oauth\/token$/;

/** A new random Idempotency-Key (Node 22, Workers and browsers all have crypto.randomUUID). */
export const newIdempotencyKey = (): string => crypto.randomUUID();

/**
 * The request pipeline under the typed client: Authorization, an Idempotency-Key on event posts,
 * pacing, and retries. Retried: a 429 (the request was not processed: spec section 7) after
 * Retry-After plus jitter; a network error or a 5xx when a repeat cannot double anything (GET, PUT,
 * DELETE, reading POSTs, and event posts, which carry their Idempotency-Key unchanged across
 * retries); a 401 once, with a renewed token. Everything else is answered as is.
 */
export function createTransport(fetchFn: FetchFn, pacer: Pacer, retry: RetryOptions = {}, random = Math.random): Transport {
  const retries = retry.retries ?? 5;
  const base = retry.baseDelayMs ?? 500;
  const cap = retry.maxDelayMs ?? 60_000;
  const backoff = (attempt: number) => random() * Math.min(cap, base * 2 ** attempt);

  return {
    async send(request, auth) {
      const url = new URL(request.url);
      const method = request.method.toUpperCase();
      const label = `${method} ${url.pathname}`;
      const body = method === "GET" || method === "HEAD" ? undefined : await request.arrayBuffer();
      const headers = new Headers(request.headers);
      if (method === "POST" && EVENT_POST.test(url.pathname) && !headers.has("Idempotency-Key")) headers.set("Idempotency-Key", newIdempotencyKey());
      const safe = method !== "POST" || headers.has("Idempotency-Key") || READ_POST.test(url.pathname);
      const action = actionOf(url.pathname, method, body);
      let renewed = false;

      for (let attempt = 0; ; attempt++) {
        const authorization = auth ? await auth.header() : (headers.get("Authorization") ?? "");
        if (auth) headers.set("Authorization", authorization);
        const { key, limit } = pacer.keyFor(tokenId(authorization), method, url.pathname, action);
        await pacer.acquire(key, limit, request.signal);
        let response: Response;
        try {
          response = await fetchFn(new Request(url, { method, headers, body, signal: request.signal, redirect: request.redirect }));
        } catch (error) {
          if (request.signal?.aborted || !safe || attempt >= retries) throw new PathwiseNetworkError(label, error);
          await sleep(backoff(attempt), request.signal);
          continue;
        }
        const wait = retryAfterMs(response.headers);
        pacer.observe(key, response, wait);
        if (response.status === 401 && auth && !renewed) {
          renewed = true;
          if (await auth.refused(authorization)) {
            await response.body?.cancel();
            attempt--;
            continue;
          }
        }
        const retryable = response.status === 429 || (safe && response.status >= 500 && response.status !== 501);
        if (retryable && attempt < retries) {
          await response.body?.cancel();
          // the pacer holds the key until Retry-After; the jitter spreads callers that waited together
          await sleep(Math.min(cap, (response.status === 429 ? 0 : backoff(attempt)) + random() * base * 2 ** Math.min(attempt, 6)), request.signal);
          continue;
        }
        return response;
      }
    },
  };
}

/** A short, stable id of the access token for the pacer's keys (its signature's tail), never the token. */
function tokenId(authorization: string): string {
  return authorization ? authorization.slice(-16) : "anonymous";
}

/** The batch goal assignment counts `assign` and `unassign` requests in separate windows (docs/api-conventions.md "Lists, tables and metrics bodies"). */
function actionOf(pathname: string, method: string, body: ArrayBuffer | undefined): string | undefined {
  if (method !== "PUT" || !body || !/\/scoped-goals\/[^/]+\/registrations$/.test(pathname)) return undefined;
  try {
    const action = (JSON.parse(new TextDecoder().decode(body)) as { action?: unknown }).action;
    return typeof action === "string" ? action : undefined;
  } catch {
    return undefined;
  }
}

/** Reads an error response into a PathwiseError (the body is consumed). */
export async function errorOf(response: Response, label: string): Promise<PathwiseError> {
  const text = await response.text().catch(() => "");
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return new PathwiseError(response.status, body, response, label);
}
