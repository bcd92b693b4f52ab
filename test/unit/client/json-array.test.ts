import { describe, expect, it } from "vitest";
import { jsonArrayElements } from "../../../client/lifecycle";

/** The client's streaming reader of a JSON array (pw.exportStatements): elements parsed one at a time, whatever the chunking. */

async function* chunked(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size);
}

async function all(text: string, size: number): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const e of jsonArrayElements(chunked(text, size))) out.push(e);
  return out;
}

const ELEMENTS = [
  { id: "a", nested: { list: [1, [2, 3], { deep: "]" }] }, text: 'quotes " and \\ backslash, commas, and brackets [ { } ]' },
  { id: "b", unicode: "Grüße, 学生 🎓", empty: [], obj: {} },
  "a bare string, with a comma",
  42,
  null,
  [{ inner: "[,]" }],
];

describe("jsonArrayElements", () => {
  it("yields every element of the array, split at any byte (multi-byte characters and escapes included)", async () => {
    const text = JSON.stringify(ELEMENTS, null, 1);
    for (const size of [1, 2, 3, 5, 7, 64, text.length]) expect(await all(text, size)).toEqual(ELEMENTS);
  });

  it("an empty array yields nothing; a truncated one is an error", async () => {
    expect(await all(" [ ] ", 1)).toEqual([]);
    await expect(all(JSON.stringify(ELEMENTS).slice(0, -10), 4)).rejects.toThrow();
  });
});
