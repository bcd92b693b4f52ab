import { describe, expect, it } from "vitest";
import { parseCsv } from "../../../scripts/lib/csv";
import { formatProblem, inventoryToGraph, locateIssue } from "../../../scripts/lib/inventory";
import { validateGraph } from "../../../src/graphs/validate-graph";

describe("parseCsv", () => {
  it("handles quotes, escaped quotes, embedded commas and line breaks, CRLF, BOM and blank lines", () => {
    const text = '\ufeffa,b,c\r\n1,"x, y","say ""hi"""\r\n\r\n2,"multi\nline",\n3,,last';
    expect(parseCsv(text)).toEqual([
      { line: 1, fields: ["a", "b", "c"] },
      { line: 2, fields: ["1", "x, y", 'say "hi"'] },
      { line: 4, fields: ["2", "multi\nline", ""] },
      { line: 6, fields: ["3", "", "last"] },
    ]);
  });

  it("reports an unclosed quote with its line", () => {
    expect(() => parseCsv('a\n"open,b\n')).toThrow(/line 2: a quoted field is not closed/);
  });
});

const ATOMS = `atom_id,name,type,container,container_name,learning_objective_ids,taxon_paths,algorithmic
mref-l1,"Lesson: add, subtract",instructional,,,lref-add,TOC:Unit1|Section1,
mref-q1,Question 1,assessment,mref-set1,Set one,lref-add,TOC:Unit1|Section1,true
mref-q2,Question 2,both,mref-set1,Set one,lref-add;lref-mul,TOC:Unit1|Section2;TOC:Review,no
`;
const PREREQS = `objective_id,prerequisite_id,objective_name
lref-add,,Add
lref-mul,lref-add,Multiply
`;

describe("inventoryToGraph", () => {
  it("converts atoms and prerequisites into a valid graph document", () => {
    const r = inventoryToGraph({ atomsCsv: ATOMS, prerequisitesCsv: PREREQS, label: "gref-x", name: "X" });
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    expect(r.doc).toEqual({
      label: "gref-x",
      name: "X",
      learning_objectives: [
        { id: "lref-add", name: "Add", prerequisites: [] },
        { id: "lref-mul", name: "Multiply", prerequisites: ["lref-add"] },
      ],
      modules: [
        { id: "mref-l1", name: "Lesson: add, subtract", type: "instructional", learning_objectives: ["lref-add"] },
        { id: "mref-q1", name: "Question 1", type: "assessment", learning_objectives: ["lref-add"], algorithmic: true },
        { id: "mref-q2", name: "Question 2", type: "both", learning_objectives: ["lref-add", "lref-mul"] },
      ],
      bundles: [{ id: "mref-set1", name: "Set one", modules: ["mref-q1", "mref-q2"] }],
      taxonomy: [
        { id: "tref-TOC:Unit1", name: "Unit1", modules: ["mref-l1", "mref-q1", "mref-q2"] },
        { id: "tref-TOC:Unit1|Section1", name: "Section1", modules: ["mref-l1", "mref-q1"] },
        { id: "tref-TOC:Unit1|Section2", name: "Section2", modules: ["mref-q2"] },
        { id: "tref-TOC:Review", name: "Review", modules: ["mref-q2"] },
      ],
    });
    expect(validateGraph(r.doc).valid).toBe(true);
  });

  it("reports conversion problems and validation issues by file and line", () => {
    const atoms = `${ATOMS}mref-q1,Again,quiz,,,lref-nope,,maybe\nmref-q3,Orphan,assessment,,,,,\n`;
    const prereqs = `${PREREQS}lref-add,lref-mul,\nlref-mul,lref-typo,\n`;
    const r = inventoryToGraph({ atomsCsv: atoms, prerequisitesCsv: prereqs, label: "gref-x", name: "X", atomsFile: "a.csv", prerequisitesFile: "p.csv" });
    expect(r.errors.map(formatProblem)).toEqual([
      "a.csv line 5: mref-q1: type 'quiz' is not one of assessment, instructional, both",
      "a.csv line 5: mref-q1: algorithmic 'maybe' is not true/false",
    ]);
    expect(r.warnings.map(formatProblem)).toEqual(["a.csv line 5: objective 'lref-nope' has no name; add a row 'lref-nope,,<name>' to p.csv"]);
    const located = validateGraph(r.doc, { pathPrefix: "doc" }).errors.map((i) => formatProblem(locateIssue(i, r.sources)));
    expect(located).toEqual([
      "a.csv line 5: duplicate module id 'mref-q1' (first at a.csv line 3)",
      "p.csv line 5: lref-mul: unknown learning objective 'lref-typo'",
      "a.csv line 6: module 'mref-q3' is aligned to no learning objective; align it to at least one",
      expect.stringMatching(/^p\.csv line 4: lref-add: prerequisite cycle: lref-add -> lref-mul -> lref-add/),
    ]);
  });

  it("names missing header columns", () => {
    const r = inventoryToGraph({ atomsCsv: "id,title\nmref-a,A\n", label: "gref-x", name: "X" });
    expect(r.errors[0]!.message).toMatch(/lacks the column\(s\) type, learning_objective_ids/);
  });
});
