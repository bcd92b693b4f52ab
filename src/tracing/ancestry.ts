/**
 * Which in-scope ancestors each objective has beyond those of one of its prerequisites: what belief
 * propagation (beliefs.ts) multiplies to count every distinct ancestor once. Computed once per
 * prerequisite relation (memoized on its array) with bitsets; what is kept is only the differences,
 * so a chain costs O(objectives) and not O(objectives²).
 */

export interface Ancestry {
  /** per objective: the slot of the prerequisite whose ancestors (and itself) cover most of the objective's ancestors; -1 for a root */
  base: Int32Array;
  /** per objective and prerequisite slot i: the objective's ancestors that are neither prerequisite i nor one of its ancestors */
  rest: (readonly number[])[][];
}

const memo = new WeakMap<readonly (readonly number[])[], Ancestry>();

/** `prereqs`: per objective its prerequisites' indices, objectives in topological order. */
export function ancestry(prereqs: readonly (readonly number[])[]): Ancestry {
  let a = memo.get(prereqs);
  if (!a) {
    a = compute(prereqs);
    memo.set(prereqs, a);
  }
  return a;
}

function compute(prereqs: readonly (readonly number[])[]): Ancestry {
  const n = prereqs.length;
  const words = (n + 31) >>> 5;
  const sets = new Uint32Array(n * words);
  const sizes = new Int32Array(n);
  const base = new Int32Array(n).fill(-1);
  const rest: number[][][] = [];
  for (let k = 0; k < n; k++) {
    const ps = prereqs[k] as readonly number[];
    const own = k * words;
    for (const p of ps) {
      for (let w = 0; w < words; w++) sets[own + w]! |= sets[p * words + w]!;
      sets[own + (p >>> 5)]! |= 1 << (p & 31);
    }
    let size = 0;
    for (let w = 0; w < words; w++) size += popcount(sets[own + w]!);
    sizes[k] = size;
    const lists: number[][] = [];
    for (const [i, p] of ps.entries()) {
      if (base[k] === -1 || sizes[p]! > sizes[ps[base[k]!]!]!) base[k] = i;
      const list: number[] = [];
      for (let w = 0; w < words; w++) {
        let bits = sets[own + w]! & ~sets[p * words + w]!;
        if (w === p >>> 5) bits &= ~(1 << (p & 31));
        while (bits) {
          const low = bits & -bits;
          list.push((w << 5) + (31 - Math.clz32(low)));
          bits ^= low;
        }
      }
      lists.push(list);
    }
    rest.push(lists);
  }
  return { base, rest };
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
