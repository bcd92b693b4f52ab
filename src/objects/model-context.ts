import type { GraphIndex } from "../graphs/runtime-graph";
import { buildGraph, checkParams, type ModelParams, type PrereqGraph } from "../model";
import serviceParams from "../model/service-params.json";

/**
 * Population-level model parameters the service runs with: calibrated offline by
 * `npm run calibrate -- --service` (feature weights, filter and graph constants; partner items start from the
 * objective/global difficulty and are refined online).
 */
export const SERVICE_PARAMS = checkParams(serviceParams as unknown as ModelParams);

/**
 * Identifies the parameters a learner state was computed with (FNV-1a of their JSON). A state kept
 * under other parameters (a recalibration was deployed) is rebuilt from the event log.
 */
export const SERVICE_PARAMS_ID = fnv1a(JSON.stringify(SERVICE_PARAMS));

function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

const prereqGraphs = new WeakMap<GraphIndex, PrereqGraph>();

/** The model's view of a graph's prerequisites, built once per loaded graph version. */
export function modelGraphFor(graph: GraphIndex): PrereqGraph {
  let built = prereqGraphs.get(graph);
  if (!built) {
    const prerequisites: Record<string, string[]> = {};
    graph.graph.objectives.forEach((label, i) => {
      prerequisites[label] = (graph.graph.prerequisites[i] ?? []).map((p) => graph.graph.objectives[p] as string);
    });
    built = buildGraph(prerequisites);
    prereqGraphs.set(graph, built);
  }
  return built;
}
