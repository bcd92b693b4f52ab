import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import { ApiError } from "../errors";
import { GRAPH_DOCUMENT_MAX_BYTES, MAX_BODY_BYTES } from "../schemas/limits";
import type { AppEnv } from "./app-env";

const mib = (bytes: number) => bytes / 1024 / 1024;

const defaultLimit = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new ApiError(413, `The request body is larger than ${mib(MAX_BODY_BYTES)} MiB.`);
  },
});

const graphDocumentLimit = bodyLimit({
  maxSize: GRAPH_DOCUMENT_MAX_BYTES,
  onError: () => {
    throw new ApiError(413, `The graph document is larger than ${mib(GRAPH_DOCUMENT_MAX_BYTES)} MiB.`);
  },
});

/** True for the requests whose body is a graph document (POST /v0/graphs, POST /v0/graphs/validate, PUT /v0/graphs/{id}). */
export function takesGraphDocument(method: string, path: string): boolean {
  if (method === "POST") return path === "/v0/graphs" || path === "/v0/graphs/validate";
  if (method === "PUT") return /^\/v0\/graphs\/[^/]+$/.test(path);
  return false;
}

/** 413 beyond 1 MiB; graph documents may reach 6 MiB (a 20,000-module graph is about 3 MiB). */
export const bodySizeLimit = () =>
  createMiddleware<AppEnv>((c, next) => (takesGraphDocument(c.req.method, c.req.path) ? graphDocumentLimit : defaultLimit)(c, next));
