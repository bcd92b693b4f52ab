/**
 * Builds the compact runtime form (runtime-graph.ts) of a VALID graph document: pure, no I/O, run
 * once per ingested version. Module indices: atoms in document order, then bundles. Objective
 * indices: topological order (prerequisites first; ties in document order).
 */
import type { GraphDocument } from "./graph-document";
import type { ModuleType, RuntimeGraph, RuntimeModule } from "./runtime-graph";

export interface BuildOptions {
  id: string;
  version: number;
  /** module UUIDs of the previous version, by label: kept so a module's UUID never changes */
  previousUuids?: ReadonlyMap<string, string>;
  newUuid?: () => string;
}

export function buildRuntimeGraph(doc: GraphDocument, options: BuildOptions): RuntimeGraph {
  const newUuid = options.newUuid ?? (() => crypto.randomUUID());
  const docObjectives = doc.learning_objectives;
  const n = docObjectives.length;
  const docIndex = new Map<string, number>();
  for (const [i, o] of docObjectives.entries()) docIndex.set(o.id, i);

  // prerequisites in document indices
  const docPrereqs: number[][] = docObjectives.map((o) => unique((o.prerequisites ?? []).map((p) => docIndex.get(p)!)));
  const docDependents: number[][] = Array.from({ length: n }, () => []);
  for (const [i, ps] of docPrereqs.entries()) for (const p of ps) docDependents[p]!.push(i);

  // Kahn's algorithm: prerequisites first, document order among the ready ones
  const remaining = docPrereqs.map((ps) => ps.length);
  const ready = new MinQueue();
  for (const [i, r] of remaining.entries()) if (r === 0) ready.push(i);
  const order: number[] = [];
  while (ready.size) {
    const i = ready.pop();
    order.push(i);
    for (const d of docDependents[i]!) if (--remaining[d]! === 0) ready.push(d);
  }
  if (order.length !== n) throw new Error("buildRuntimeGraph: the prerequisite relation has a cycle (validate first)");
  const rank = new Array<number>(n);
  for (const [k, docI] of order.entries()) rank[docI] = k;

  const objectives = order.map((i) => docObjectives[i]!.id);
  const objectiveNames = order.map((i) => docObjectives[i]!.name);
  const prerequisites = order.map((i) => docPrereqs[i]!.map((p) => rank[p]!).sort(byNumber));
  const dependents: number[][] = Array.from({ length: n }, () => []);
  for (const [k, ps] of prerequisites.entries()) for (const p of ps) dependents[p]!.push(k);
  const depth = new Array<number>(n).fill(0);
  for (let k = 0; k < n; k++) for (const p of prerequisites[k]!) depth[k] = Math.max(depth[k]!, depth[p]! + 1);

  // modules: atoms then bundles
  const objectiveByLabel = new Map<string, number>();
  for (const [k, o] of objectives.entries()) objectiveByLabel.set(o, k);
  const uuidFor = (label: string) => options.previousUuids?.get(label) ?? newUuid();
  const modules: RuntimeModule[] = doc.modules.map((m) => ({
    label: m.id,
    uuid: uuidFor(m.id),
    name: m.name,
    type: m.type,
    atom: true,
    objectives: sorted(unique(m.learning_objectives.map((o) => objectiveByLabel.get(o)!))),
    members: [],
    algorithmic: m.algorithmic ?? false,
  }));
  const moduleByLabel = new Map<string, number>();
  for (const [i, m] of modules.entries()) moduleByLabel.set(m.label, i);
  for (const b of doc.bundles ?? []) {
    const members = unique(b.modules.map((id) => moduleByLabel.get(id)!));
    const objectiveSet = new Set<number>();
    for (const a of members) for (const o of modules[a]!.objectives) objectiveSet.add(o);
    modules.push({
      label: b.id,
      uuid: uuidFor(b.id),
      name: b.name,
      type: bundleType(members.map((a) => modules[a]!.type)),
      atom: false,
      objectives: [...objectiveSet].sort(byNumber),
      members,
      algorithmic: members.some((a) => modules[a]!.algorithmic),
    });
    moduleByLabel.set(b.id, modules.length - 1);
  }

  const assessmentsByObjective: number[][] = Array.from({ length: n }, () => []);
  const instructionByObjective: number[][] = Array.from({ length: n }, () => []);
  modules.forEach((m, i) => {
    if (!m.atom) return;
    for (const o of m.objectives) {
      if (m.type !== "instructional") assessmentsByObjective[o]!.push(i);
      if (m.type !== "assessment") instructionByObjective[o]!.push(i);
    }
  });

  const taxonomy = (doc.taxonomy ?? []).map((t) => ({ id: t.id, modules: unique(t.modules.map((id) => moduleByLabel.get(id)!)) }));

  return {
    format: 1,
    id: options.id,
    label: doc.label,
    name: doc.name,
    version: options.version,
    objectives,
    objectiveNames,
    prerequisites,
    dependents,
    depth,
    modules,
    assessmentsByObjective,
    instructionByObjective,
    taxonomy,
  };
}

function bundleType(types: ModuleType[]): ModuleType {
  const assesses = types.some((t) => t !== "instructional");
  const instructs = types.some((t) => t !== "assessment");
  return assesses && instructs ? "both" : assesses ? "assessment" : "instructional";
}

const byNumber = (a: number, b: number) => a - b;
const sorted = (values: number[]) => (values.length < 2 ? values : values.sort(byNumber));

/** Distinct values in first-seen order (most lists here have 0-3 entries: no Set for those). */
function unique(values: number[]): number[] {
  if (values.length < 2) return values;
  if (values.length <= 8) return values.filter((v, i) => values.indexOf(v) === i);
  return [...new Set(values)];
}

/** A binary min-heap of small integers (document indices). */
class MinQueue {
  #heap: number[] = [];
  get size() {
    return this.#heap.length;
  }
  push(v: number) {
    const h = this.#heap;
    h.push(v);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p]! <= h[i]!) break;
      [h[p], h[i]] = [h[i]!, h[p]!];
      i = p;
    }
  }
  pop(): number {
    const h = this.#heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l]! < h[m]!) m = l;
        if (r < h.length && h[r]! < h[m]!) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i]!, h[m]!];
        i = m;
      }
    }
    return top;
  }
}
