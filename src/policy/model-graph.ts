import type { GraphIndex } from "../graphs/runtime-graph";
import { buildGraph, type PrereqGraph } from "../model";

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
