import type { paths, ResponseData, Schemas } from "../../client";
import { rawCall } from "./raw-call";

/**
 * The suite's typed request: the route is a path template of the API document (client/schema.ts,
 * generated from the document the Worker serves), its path parameters, query and JSON body are
 * typed by that route, and so is the response body. A response-schema change therefore breaks the
 * type check of every test that reads the changed field. Requests that must break the contract on
 * purpose (malformed or wrongly typed bodies, unknown routes) use `rawCall` instead.
 */
export type Method = "GET" | "POST" | "PUT" | "DELETE";

/** The document's routes that answer `method`. */
export type Route<M extends Method> = { [P in keyof paths]: paths[P] extends { [K in Lowercase<M>]: object } ? P : never }[keyof paths];

type Operation<M extends Method, P extends Route<M>> = paths[P][Lowercase<M>];

type PathParams<O> = O extends { parameters: { path: infer X } } ? X : never;
type QueryParams<O> = O extends { parameters: { query?: infer Q } } ? Exclude<Q, undefined> : never;
type JsonBody<O> = O extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;

/** The options of a request: the token, the route's path parameters (required when it has some), its query and body. */
export type Options<O> = { token?: string; headers?: Record<string, string> } & ([PathParams<O>] extends [never]
  ? { path?: undefined }
  : { path: PathParams<O> }) &
  ([QueryParams<O>] extends [never] ? { query?: undefined } : { query?: QueryParams<O> }) &
  ([JsonBody<O>] extends [never] ? { body?: undefined } : O extends { requestBody: object } ? { body: JsonBody<O> } : { body?: JsonBody<O> });

/** The Error body every refusal answers (docs/api-document.md). */
export type ErrorBody = Schemas["Error"];

export interface TypedResponse<D> {
  status: number;
  headers: Headers;
  /** the parsed JSON, typed as the route's success body (assert the status first) */
  body: D;
  /** the same JSON typed as the Error body, for the tests that expect a refusal */
  error: ErrorBody;
}

// biome-ignore lint/complexity/noBannedTypes: `{}` (no required key) is the test openapi-fetch itself uses for optional init
type OptionalArgs<O> = {} extends Options<O> ? [options?: Options<O>] : [options: Options<O>];

/** `route` with each `{name}` replaced by its (URL-encoded) path parameter, then the query string. */
function concretePath(route: string, path: Record<string, unknown> = {}, query: Record<string, unknown> = {}): string {
  const filled = route.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (!(name in path)) throw new Error(`api(): no value for the path parameter ${name} of ${route}`);
    return encodeURIComponent(String(path[name]));
  });
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) search.append(name, String(v));
  }
  const text = search.toString();
  return text ? `${filled}?${text}` : filled;
}

/** A typed black-box call through the Worker's fetch handler (see the top of this file). */
export async function api<M extends Method, P extends Route<M>>(
  method: M,
  route: P,
  ...[options = {} as Options<Operation<M, P>>]: OptionalArgs<Operation<M, P>>
): Promise<TypedResponse<ResponseData<Lowercase<M>, P>>> {
  const { path, query, ...rest } = options as { path?: Record<string, unknown>; query?: Record<string, unknown>; token?: string; body?: unknown };
  const res = await rawCall(method, concretePath(route, path, query), rest);
  return { ...res, error: res.body };
}
