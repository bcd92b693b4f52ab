/**
 * A synthetic, valid graph document of a given size: objectives in layers with 1-3 prerequisites
 * each from earlier objectives, modules spread evenly over the objectives (mostly assessment, every
 * fifth instructional, a few aligned to two objectives), a bundle per 10 modules and a taxon per
 * 50. Deterministic (seeded), so benchmark runs compare.
 */
import type { GraphDocument } from "../../src/graphs/graph-document";

export function syntheticGraph(modules: number, objectives: number, label = "gref-synthetic", seed = 42): GraphDocument {
  let s = seed >>> 0;
  const random = () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const lo = Array.from({ length: objectives }, (_, i) => {
    const prerequisites: string[] = [];
    if (i > 0) {
      const count = 1 + Math.floor(random() * 3);
      for (let k = 0; k < count; k++) {
        const p = `lref-o${Math.floor(random() * i)}`;
        if (!prerequisites.includes(p)) prerequisites.push(p);
      }
    }
    return { id: `lref-o${i}`, name: `Objective ${i}`, prerequisites };
  });
  const mods = Array.from({ length: modules }, (_, i) => {
    const o = i % objectives;
    const aligned = [`lref-o${o}`];
    if (i % 17 === 0 && objectives > 1) aligned.push(`lref-o${(o + 1) % objectives}`);
    return {
      id: `mref-m${i}`,
      name: `Module ${i}`,
      type: i % 5 === 4 ? ("instructional" as const) : ("assessment" as const),
      learning_objectives: aligned,
      algorithmic: i % 7 === 0,
    };
  });
  const bundles = [];
  for (let b = 0; b * 10 < modules; b++) {
    bundles.push({ id: `mref-b${b}`, name: `Bundle ${b}`, modules: mods.slice(b * 10, b * 10 + 10).map((m) => m.id) });
  }
  const taxonomy = [];
  for (let t = 0; t * 50 < modules; t++) {
    taxonomy.push({ id: `tref-TOC:Unit${Math.floor(t / 10)}|Section${t % 10}`, modules: mods.slice(t * 50, t * 50 + 50).map((m) => m.id) });
  }
  return { label, name: `Synthetic ${modules}/${objectives}`, learning_objectives: lo, modules: mods, bundles, taxonomy };
}
