/**
 * The largest graph document a partner may post (docs/security.md "Limits"): 20,000 modules and
 * 2,000 objectives (the graph limits), names padded so the document is just under the 6 MiB body
 * limit of the graph routes. Pure, so the benchmarks and the workerd tests share it.
 */
import type { GraphDocument } from "../../src/graphs/graph-document";
import { GRAPH_DOCUMENT_MAX_BYTES } from "../../src/schemas/limits";
import { syntheticGraph } from "./synthetic-graph";

/** Room left for a longer label and the JSON around a request. */
const SPARE_BYTES = 4096;

export function largestGraph(label: string): GraphDocument {
  const doc = syntheticGraph(20_000, 2_000, label);
  const items = doc.learning_objectives.length + doc.modules.length + (doc.bundles?.length ?? 0);
  const spare = GRAPH_DOCUMENT_MAX_BYTES - SPARE_BYTES - new TextEncoder().encode(JSON.stringify(doc)).length;
  const pad = Math.max(0, Math.min(480, Math.floor(spare / items)));
  const padded = (name: string) => `${name} ${"x".repeat(Math.max(0, pad - 1))}`;
  return {
    ...doc,
    learning_objectives: doc.learning_objectives.map((o) => ({ ...o, name: padded(o.name) })),
    modules: doc.modules.map((m) => ({ ...m, name: padded(m.name) })),
    bundles: doc.bundles?.map((b) => ({ ...b, name: padded(b.name) })),
  };
}
