import { findModule, type GraphIndex } from "../../graphs/runtime-graph";
import type { ErrorDetail } from "../../schemas/common";
import type { EventInput } from "./rpc";

export interface ResolvedEvent {
  input: EventInput;
  /** module index in the runtime graph (an atom) */
  module: number;
}

/**
 * Resolves each event's module id (uuid or mref label) to an atom of the graph. Unknown ids and
 * bundles are reported with their request path, or dropped when `ignoreInvalid` (spec 4.6).
 */
export function resolveModules(graph: GraphIndex, events: EventInput[], ignoreInvalid: boolean): { accepted: ResolvedEvent[]; details: ErrorDetail[] } {
  const accepted: ResolvedEvent[] = [];
  const details: ErrorDetail[] = [];
  for (const input of events) {
    const module = findModule(graph, input.moduleId);
    const atom = module !== undefined && graph.graph.modules[module]?.atom === true;
    if (atom) accepted.push({ input, module });
    else if (!ignoreInvalid) {
      details.push({
        path: input.path,
        message: module === undefined ? `'${input.moduleId}' is not a module of the graph` : `'${input.moduleId}' is a bundle; send events on its atoms`,
      });
    }
  }
  return { accepted, details };
}
