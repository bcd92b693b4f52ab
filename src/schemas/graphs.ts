import { z } from "@hono/zod-openapi";
import { GRAPH_ISSUES_MAX, GRAPH_LIMITS, type GraphDocument } from "../graphs/graph-document";
import { GRAPH_DOCUMENT_MAX_BYTES } from "./limits";
import { freeText, identifierText } from "./text";

/**
 * The graph document (docs/graphs.md). zod checks the structure only (missing
 * fields, wrong types, a list of one item longer than a graph can hold → 400); prefixes, uniqueness,
 * references, cycles and the graph's limits are checked by src/graphs/validate-graph.ts so that every
 * such problem is reported at once (422; POST /v0/graphs/validate lists them in its report). The
 * document's top-level lists state those limits as maxItems.
 */
const Ref = identifierText.min(1).max(200);
const Name = freeText.max(500);

export const GraphObjectiveSchema = z.object({
  id: Ref.openapi({ example: "lref-lin-eq" }),
  name: Name,
  prerequisites: z.array(Ref).max(GRAPH_LIMITS.learningObjectives).optional().openapi({ description: "Objective ids (lref-) this objective builds on." }),
});

export const ModuleTypeSchema = z.enum(["assessment", "instructional", "both"]);

export const GraphModuleSchema = z.object({
  id: Ref.openapi({ example: "mref-q17" }),
  name: Name,
  type: ModuleTypeSchema,
  learning_objectives: z.array(Ref).max(GRAPH_LIMITS.learningObjectives).openapi({ description: "Aligned objective ids (at least one)." }),
  algorithmic: z.boolean().optional(),
});

export const GraphBundleSchema = z.object({
  id: Ref.openapi({ example: "mref-set-3" }),
  name: Name,
  modules: z.array(Ref).max(GRAPH_LIMITS.modules).openapi({ description: "Member atoms (module ids; bundles cannot contain bundles)." }),
});

export const GraphTaxonSchema = z.object({
  id: Ref.openapi({ example: "tref-TOC:Unit1|Section2" }),
  name: Name.optional(),
  modules: z.array(Ref).max(GRAPH_LIMITS.modules),
});

export const GraphDocumentSchema = z
  .object({
    label: Ref.openapi({ example: "gref-algebra-1", description: "The partner's graph reference; unique per partner, immutable." }),
    name: freeText.min(1).max(500),
    // The graph's limits, checked by validateGraph (422, or listed by /v0/graphs/validate), stated here.
    learning_objectives: z.array(GraphObjectiveSchema).openapi({ maxItems: GRAPH_LIMITS.learningObjectives }),
    modules: z.array(GraphModuleSchema).openapi({ maxItems: GRAPH_LIMITS.modules }),
    bundles: z.array(GraphBundleSchema).optional().openapi({ maxItems: GRAPH_LIMITS.bundles }),
    taxonomy: z.array(GraphTaxonSchema).optional().openapi({ maxItems: GRAPH_LIMITS.taxa }),
  })
  .openapi("GraphDocument", {
    description: `At most ${GRAPH_LIMITS.modules.toLocaleString("en-US")} modules, ${GRAPH_LIMITS.learningObjectives.toLocaleString("en-US")} learning objectives, ${GRAPH_LIMITS.bundles.toLocaleString("en-US")} bundles and ${GRAPH_LIMITS.taxa.toLocaleString("en-US")} taxa. Request bodies up to ${GRAPH_DOCUMENT_MAX_BYTES / 1024 / 1024} MiB are accepted on the graph document routes. A validation lists at most ${GRAPH_ISSUES_MAX} errors and ${GRAPH_ISSUES_MAX} warnings (the last entry counts the rest).`,
  });

// The schema's output must be usable as the pure document type.
const _check: (doc: z.infer<typeof GraphDocumentSchema>) => GraphDocument = (doc) => doc;
void _check;

export const GraphCountsSchema = z
  .object({
    learning_objectives: z.number().int(),
    prerequisites: z.number().int(),
    modules: z.number().int(),
    assessment_modules: z.number().int(),
    instructional_modules: z.number().int(),
    bundles: z.number().int(),
    taxa: z.number().int(),
  })
  .openapi("GraphCounts");

const Issue = z.object({ path: z.string(), message: z.string() });

export const GraphValidationSchema = z
  .object({ valid: z.boolean(), errors: z.array(Issue), warnings: z.array(Issue), counts: GraphCountsSchema })
  .openapi("GraphValidation");

export const GraphSummarySchema = z
  .object({
    id: z.string().uuid(),
    label: z.string(),
    name: z.string(),
    version: z.number().int(),
    counts: GraphCountsSchema,
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("GraphSummary");

export const GraphWithIdsSchema = GraphDocumentSchema.extend({
  id: z.string().uuid(),
  version: z.number().int(),
  created_at: z.string().openapi({ description: "When the graph was created (version 1), ISO 8601 UTC, as GET /v0/graphs lists it" }),
  updated_at: z.string().openapi({ description: "When this version was stored, ISO 8601 UTC (the latest version's: GET /v0/graphs' updated_at)" }),
  modules: z.array(GraphModuleSchema.extend({ uuid: z.string().uuid() })),
  bundles: z.array(GraphBundleSchema.extend({ uuid: z.string().uuid() })).optional(),
}).openapi("Graph", { description: "The graph document of one version, with the graph's id and version and each module's (and bundle's) uuid." });

export const GraphRefParams = z.object({
  graph_id: identifierText
    .min(1)
    .max(200)
    .openapi({ param: { name: "graph_id", in: "path" }, description: "Graph uuid or gref- label", example: "gref-pre-algebra" }),
});

export const GraphVersionCreatedSchema = z
  .object({ id: z.string().uuid(), label: z.string(), name: z.string(), version: z.number().int(), counts: GraphCountsSchema })
  .openapi("GraphVersionCreated");
