import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { GraphRow } from "../db/schema";
import { forbidden, notFound } from "../errors";
import { validateGraph } from "../graphs/validate-graph";
import type { AppEnv } from "../http/app-env";
import { apiRoute } from "../http/define-route";
import { createRouter } from "../http/router";
import { readGraphDocument } from "../reads/graph-versions";
import { json, jsonBody, pageQuery, refusal } from "../schemas/common";
import {
  GraphDocumentSchema,
  GraphRefParams,
  GraphSummarySchema,
  GraphValidationSchema,
  GraphVersionCreatedSchema,
  GraphWithIdsSchema,
} from "../schemas/graphs";
import { GRAPH_DOCUMENT_MAX_BYTES } from "../schemas/limits";
import { findAccount } from "../services/accounts";
import { findGraph, ingestGraph, listGraphs, updateGraph } from "../services/graph-store";
import { withGraphTimes } from "../services/graph-times";
import { authorize, type Subject } from "./authorize";

type Entitlement = "partner_graph_ingest" | "partner_graph_validate" | "partner_graph_update";

/** Entitlements live on the caller's account (the partner admin has them all); "all" grants every one. */
async function requireEntitlement(c: Context<AppEnv>, entitlement: Entitlement): Promise<void> {
  const account = await findAccount(c.get("db"), c.get("caller").accountId);
  const held = account?.entitlements ?? [];
  if (!held.includes(entitlement) && !held.includes("all")) throw forbidden(`The caller's account lacks the ${entitlement} entitlement.`);
}

const subjectOf = (g: GraphRow): Subject => ({ kind: "Graph", partnerId: g.partnerId });

async function requireGraph(c: Context<AppEnv>, ref: string): Promise<GraphRow> {
  const graph = await findGraph(c.get("db"), c.get("caller").partnerId, ref);
  if (!graph) throw notFound("Graph");
  return graph;
}

const body413 = { 413: refusal(`Body over ${GRAPH_DOCUMENT_MAX_BYTES / 1024 / 1024} MiB (graph document routes only; 1 MiB elsewhere)`) };

const ingestRoute = apiRoute({
  method: "post",
  path: "/v0/graphs",
  tags: ["Graphs"],
  operationId: "createGraph",
  summary: "Create a knowledge graph",
  description:
    "Stores a knowledge graph document as version 1 of a new graph: learning objectives with their prerequisites, modules (atoms) aligned to objectives, bundles and a table of contents (docs/graphs.md). An invalid document is 422 with every problem in `details`; the label must be new for the partner. Needs the `partner_graph_ingest` entitlement. Body up to 6 MiB.",
  request: { body: jsonBody(GraphDocumentSchema) },
  responses: {
    201: json(GraphVersionCreatedSchema, "The new graph"),
    ...body413,
    422: refusal("The document is invalid (details list every problem) or the label is already used"),
  },
});

const validateRoute = apiRoute({
  method: "post",
  path: "/v0/graphs/validate",
  tags: ["Graphs"],
  operationId: "validateGraph",
  summary: "Validate a graph document",
  description:
    "Checks a knowledge graph document without storing it and reports every problem at once (`errors`, `warnings`, with JSON paths) and the document's counts. Needs the partner's `partner_graph_validate` entitlement (403 without). Body up to 6 MiB (docs/graphs.md).",
  request: { body: jsonBody(GraphDocumentSchema) },
  responses: { 200: json(GraphValidationSchema, "The validation report"), ...body413 },
});

const updateRoute = apiRoute({
  method: "put",
  path: "/v0/graphs/{graph_id}",
  tags: ["Graphs"],
  operationId: "updateGraph",
  summary: "Create a new version of a knowledge graph",
  description:
    "Stores the document as the graph's next version. Changes are additive: new objectives, modules, prerequisites and alignments, and renames; removing an id or a relation, or changing a module's type, is 422 with each problem in `details`. Needs the `partner_graph_update` entitlement. A concurrent update of the same graph is 409: read the graph again and retry.",
  request: { params: GraphRefParams, body: jsonBody(GraphDocumentSchema) },
  responses: {
    200: json(GraphVersionCreatedSchema, "The new version"),
    ...body413,
    409: refusal("Updated concurrently"),
    422: refusal(
      "Invalid document, a changed label, or a non-additive change: an existing id removed or losing a prerequisite, alignment, bundle member or taxon module, a changed module type, an atom/bundle switch (details list each)",
    ),
  },
});

const getRoute = apiRoute({
  method: "get",
  path: "/v0/graphs/{graph_id}",
  tags: ["Graphs"],
  operationId: "getGraph",
  summary: "Get a knowledge graph",
  description:
    "The graph document of the latest version (or of `?version=N`), with the graph's `id` and `version`, when the graph was created (`created_at`) and when this version was stored (`updated_at`), and each module's and bundle's `uuid`. `graph_id` is the graph's uuid or its gref- label.",
  request: {
    params: GraphRefParams,
    query: z.object({
      version: z.coerce
        .number()
        .int()
        .min(1)
        .optional()
        .openapi({ param: { name: "version", in: "query" } }),
    }),
  },
  responses: { 200: json(GraphWithIdsSchema, "The graph") },
});

const listRoute = apiRoute({
  method: "get",
  path: "/v0/graphs",
  tags: ["Graphs"],
  operationId: "listGraphs",
  summary: "List knowledge graphs",
  description:
    "The partner's graphs as summaries of their latest versions (id, label, name, version, counts), in creation order, as a bare JSON array paged by `offset` and `limit`.",
  request: { query: pageQuery },
  responses: { 200: json(z.array(GraphSummarySchema), "Graphs in creation order") },
});

export const graphsRouter = createRouter()
  .openapi(validateRoute, async (c) => {
    await authorize(c);
    await requireEntitlement(c, "partner_graph_validate");
    return c.json(validateGraph(c.req.valid("json")), 200);
  })
  .openapi(ingestRoute, async (c) => {
    await authorize(c);
    await requireEntitlement(c, "partner_graph_ingest");
    const result = await ingestGraph(c.get("db"), c.get("caller").partnerId, c.req.valid("json"));
    return c.json(result, 201);
  })
  .openapi(updateRoute, async (c) => {
    const graph = await requireGraph(c, c.req.valid("param").graph_id);
    await authorize(c, subjectOf(graph));
    await requireEntitlement(c, "partner_graph_update");
    const result = await updateGraph(c.get("db"), graph, c.req.valid("json"));
    return c.json(result, 200);
  })
  .openapi(getRoute, async (c) => {
    const graph = await requireGraph(c, c.req.valid("param").graph_id);
    await authorize(c, subjectOf(graph));
    const version = c.req.valid("query").version ?? graph.version;
    // One query: a version that was never stored has no document parts (readBlob → undefined).
    const text = version <= graph.version ? await readGraphDocument(c.get("db"), graph.id, version) : undefined;
    if (text === undefined) throw notFound("Graph version");
    // Stored as the finished JSON body but for the graph's creation time: no parse and re-serialize of a large document.
    return c.body(withGraphTimes(text, version, graph.createdAt), 200, { "Content-Type": "application/json" }) as never;
  })
  .openapi(listRoute, async (c) => {
    await authorize(c);
    const { offset, limit } = c.req.valid("query");
    return c.json(await listGraphs(c.get("db"), c.get("caller").partnerId, offset, limit), 200);
  });
