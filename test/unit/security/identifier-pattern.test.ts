import { describe, expect, it } from "vitest";
import { documentedIdentifierChar, identifierText } from "../../../src/schemas/text";

/**
 * The OpenAPI document states the identifier rule with portable escapes only (src/schemas/text.ts):
 * a partner's generated client that checks it must never refuse an identifier the server accepts.
 */
describe("the identifier pattern the API document states", () => {
  const documented = new RegExp(`^${documentedIdentifierChar()}*$`); // no `u` flag: as an ES5 / Python / Java engine reads it

  it("uses only \\uXXXX escapes: no Unicode property escapes, no code-point braces", () => {
    expect(documentedIdentifierChar()).not.toMatch(/\\p\{|\\u\{/);
  });

  it("refuses no character of the Basic Multilingual Plane that the server accepts", () => {
    const refusedOnlyByDocument: string[] = [];
    for (let cp = 0; cp <= 0xffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue; // a lone surrogate is no character; the server refuses it
      const c = String.fromCharCode(cp);
      if (!documented.test(c) && identifierText.safeParse(c).success) refusedOnlyByDocument.push(cp.toString(16));
    }
    expect(refusedOnlyByDocument).toEqual([]);
  });

  it("accepts astral characters the server accepts (emoji, CJK extension B) even in a UTF-16 engine", () => {
    for (const id of ["learner-😀", "𠀀𠀁", "é-ü-ñ"]) {
      expect(identifierText.safeParse(id).success).toBe(true);
      expect(documented.test(id)).toBe(true);
    }
  });

  it("states the common refusals: controls, zero-width and bidi characters, no-break spaces, the BOM, private use", () => {
    for (const c of ["\t", "\u0000", "\u200b", "\u202e", "\u00a0", "\ufeff", "\ue000", "\u2028"]) {
      expect(documented.test(`a${c}b`)).toBe(false);
      expect(identifierText.safeParse(`a${c}b`).success).toBe(false);
    }
  });
});
