/**
 * A tiny valid graph document used by `createInstance` (label gref-demo) and graph tests.
 *
 *   lref-a  <- lref-b <- lref-c        (b requires a, c requires b)
 *   lref-a  <- lref-d                  (d requires a)
 *
 * Per objective x: mref-x1, mref-x2 (assessment), mref-x3 (instructional); bundle mref-set-x holds
 * all three; taxon tref-TOC:Unit1 holds the a/b modules, tref-TOC:Unit2 the c/d modules.
 */
import type { GraphDocument } from "../../src/graphs/graph-document";

const OBJECTIVES = ["a", "b", "c", "d"] as const;
const PREREQS: Record<(typeof OBJECTIVES)[number], string[]> = { a: [], b: ["lref-a"], c: ["lref-b"], d: ["lref-a"] };

export function demoGraph(label = "gref-demo", name = "Demo graph"): GraphDocument {
  return {
    label,
    name,
    learning_objectives: OBJECTIVES.map((x) => ({ id: `lref-${x}`, name: `Objective ${x.toUpperCase()}`, prerequisites: PREREQS[x] })),
    modules: OBJECTIVES.flatMap((x) => [
      { id: `mref-${x}1`, name: `Question ${x}1`, type: "assessment" as const, learning_objectives: [`lref-${x}`] },
      { id: `mref-${x}2`, name: `Question ${x}2`, type: "assessment" as const, learning_objectives: [`lref-${x}`], algorithmic: true },
      { id: `mref-${x}3`, name: `Lesson ${x}`, type: "instructional" as const, learning_objectives: [`lref-${x}`] },
    ]),
    bundles: OBJECTIVES.map((x) => ({ id: `mref-set-${x}`, name: `Set ${x}`, modules: [`mref-${x}1`, `mref-${x}2`, `mref-${x}3`] })),
    taxonomy: [
      { id: "tref-TOC:Unit1", name: "Unit 1", modules: ["mref-a1", "mref-a2", "mref-a3", "mref-b1", "mref-b2", "mref-b3"] },
      { id: "tref-TOC:Unit2", name: "Unit 2", modules: ["mref-c1", "mref-c2", "mref-c3", "mref-d1", "mref-d2", "mref-d3"] },
    ],
  };
}
