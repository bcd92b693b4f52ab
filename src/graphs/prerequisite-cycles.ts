/** Prerequisite cycles of a graph document (an objective that, through its prerequisites, requires itself). */
import type { GraphDocument } from "./graph-document";

/**
 * One cycle (objective indices, each requiring the next, the last requiring the first) per
 * strongly connected component of the prerequisite relation that has one. Iterative Tarjan.
 */
export function findCycles(doc: GraphDocument, objectiveIndex: ReadonlyMap<string, number>): number[][] {
  const n = doc.learning_objectives.length;
  const adjacency: number[][] = doc.learning_objectives.map((o, i) => {
    if (objectiveIndex.get(o.id) !== i) return [];
    const out: number[] = [];
    for (const ref of o.prerequisites ?? []) {
      const k = objectiveIndex.get(ref);
      if (k !== undefined && !out.includes(k)) out.push(k);
    }
    return out;
  });
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const cycles: number[][] = [];
  let counter = 0;
  for (let start = 0; start < n; start++) {
    if (index[start] !== -1) continue;
    const work: [number, number][] = [[start, 0]];
    while (work.length) {
      const frame = work[work.length - 1]!;
      const [v, edge] = frame;
      if (edge === 0) {
        index[v] = low[v] = counter++;
        stack.push(v);
        onStack[v] = 1;
      }
      const next = adjacency[v]![edge];
      if (next !== undefined) {
        frame[1] = edge + 1;
        if (index[next] === -1) work.push([next, 0]);
        else if (onStack[next]) low[v] = Math.min(low[v]!, index[next]!);
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low[parent[0]] = Math.min(low[parent[0]]!, low[v]!);
      if (low[v] === index[v]) {
        const component: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          component.push(w);
        } while (w !== v);
        if (component.length > 1 || adjacency[v]!.includes(v)) cycles.push(cycleWithin(component, adjacency));
      }
    }
  }
  return cycles.sort((a, b) => a[0]! - b[0]!);
}

/** Walks prerequisite edges inside a strongly connected component until a node repeats. */
function cycleWithin(component: number[], adjacency: number[][]): number[] {
  const members = new Set(component);
  const start = Math.min(...component);
  const path: number[] = [];
  const position = new Map<number, number>();
  let v = start;
  while (!position.has(v)) {
    position.set(v, path.length);
    path.push(v);
    v = adjacency[v]!.find((w) => members.has(w))!;
  }
  const cycle = path.slice(position.get(v)!);
  // start the reported cycle at its first objective in document order
  const first = cycle.indexOf(Math.min(...cycle));
  return [...cycle.slice(first), ...cycle.slice(0, first)];
}
